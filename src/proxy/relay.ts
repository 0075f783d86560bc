/**
 * The proxy between one MCP client and one upstream server, at the level of JSON-RPC messages on the SDK's
 * transports: every message passes as it came, in order, in both directions (server-to-client requests,
 * notifications and responses included), except a `tools/call` for a tool the upstream listed, which is judged by
 * {@link ToolCatalog} and sent on repaired, or answered by the proxy when it stays invalid.
 *
 * The proxy lists the upstream's tools itself (every page) once the client says it is initialized, and again on
 * `notifications/tools/list_changed`; a call that arrives while a listing runs waits for it, and so does every
 * message the client sent after that call, so nothing is reordered. Its own requests carry ids of their own kind,
 * and their answers go to no one else.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { PipelineOptions } from '../core/pipeline.js';
import { isJsonObject } from '../core/shared/json.js';
import type { OutputRecord } from '../core/shared/types.js';
import type { ChildExit } from './child-transport.js';
import { ToolCatalog, type Judgement, type Message, type UnusableTool } from './tool-calls.js';

/** JSON-RPC error codes the SDK uses for these cases (its `ErrorCode.ConnectionClosed`, `RequestTimeout`). */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

/** Pages of `tools/list` read at most in one listing. */
const MAX_LIST_PAGES = 100;

/** Everything one client session needs: its own upstream, its own relay. */
export interface UpstreamFactory {
  create(): { transport: Transport; noise: () => string | undefined; gone: () => string; exit: () => ChildExit | undefined };
  readonly label: string;
}

/** A call the proxy judged, as it is logged and counted. */
export interface CallEvent {
  readonly tool: string;
  /** The JSON-RPC id of the call. */
  readonly id: RequestId | undefined;
  /** `repaired` and `valid` went on (repaired or as sent); `refused` was answered by the proxy; `forwarded_invalid` went on invalid. */
  readonly outcome: 'valid' | 'repaired' | 'refused' | 'forwarded_invalid';
  readonly record: OutputRecord;
  /** The arguments as the client sent them. */
  readonly sent: unknown;
}

/** Spans of `tools/call` (src/adapters/tracing/proxy-spans.ts, wired in when tracing is on). */
export interface CallTracing {
  start(message: Message): TracedCall;
}

export interface TracedCall {
  judged(record: OutputRecord, outcome: CallEvent['outcome']): void;
  /** The request with `_meta` carrying the call's trace context. */
  carry(message: Message): Message;
  /** Ends the call's span with the client's answer, or why it has none. */
  end(answer: Message | string): void;
}

export interface RelayOptions {
  readonly pipeline: PipelineOptions;
  /** Forward a call still invalid after repair, unchanged, instead of answering it. */
  readonly forwardInvalid: boolean;
  /** How long the upstream has to answer one request (reset by its progress notifications), in milliseconds. */
  readonly timeoutMs: number;
  /** Every call judged against a listed schema. */
  readonly onCall?: (event: CallEvent) => void;
  /** A listed tool whose schema cannot be used (once per tool and reason), or a listing that failed. */
  readonly onWarning?: (message: string, tool?: string) => void;
  /** Describes why the upstream cannot answer when a request times out (what it wrote that was not MCP). */
  readonly upstreamNoise?: () => string | undefined;
  /** Describes how the upstream ended, for the requests it left unanswered. */
  readonly upstreamGone?: () => string;
  readonly tracing?: CallTracing;
}

interface Pending {
  readonly method: string;
  readonly progressToken: unknown;
  timer: NodeJS.Timeout;
  readonly call: TracedCall | undefined;
}

interface OwnRequest {
  readonly resolve: (message: Message) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

const OWN_ID_PREFIX = 'toolcall-normalizer-proxy:';

export class Relay {
  readonly #client: Transport;
  readonly #upstream: Transport;
  readonly #options: RelayOptions;
  readonly #catalog: ToolCatalog;
  /** The client's messages, handled one after another in the order they came. */
  #chain: Promise<void> = Promise.resolve();
  /** Client requests the upstream has yet to answer, by id (JSON text of the id: 1 and "1" differ). */
  readonly #pending = new Map<string, Pending & { readonly id: RequestId }>();
  readonly #own = new Map<string, OwnRequest>();
  #ownCount = 0;
  #listing: Promise<void> = Promise.resolve();
  #listAgain = false;
  #listingRuns = false;
  #upstreamHasTools = false;
  #closed = false;
  #upstreamClosed = false;
  #onAnswered: (() => void) | undefined;
  readonly #done: Promise<void>;
  #resolveDone!: () => void;

  constructor(client: Transport, upstream: Transport, options: RelayOptions) {
    this.#client = client;
    this.#upstream = upstream;
    this.#options = options;
    this.#catalog = new ToolCatalog(options.pipeline);
    this.#done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
  }

  /** Resolves once either side has closed and the other has been closed. */
  get done(): Promise<void> {
    return this.#done;
  }

  /** The tools last listed (for tests and logs). */
  get toolCount(): number {
    return this.#catalog.size;
  }

  async start(): Promise<void> {
    this.#client.onmessage = (message) => {
      const copy = message as unknown as Message;
      this.#chain = this.#chain.then(() => this.#fromClient(copy)).catch(() => undefined);
    };
    this.#upstream.onmessage = (message) => {
      this.#fromUpstream(message);
    };
    this.#client.onclose = () => {
      void this.#close('client');
    };
    this.#upstream.onclose = () => {
      void this.#close('upstream');
    };
    await this.#upstream.start();
    await this.#client.start();
  }

  async close(): Promise<void> {
    await this.#close('client');
  }

  async #fromClient(message: Message): Promise<void> {
    const method = typeof message.method === 'string' ? message.method : undefined;
    const isRequest = method !== undefined && 'id' in message;
    if (!isRequest) {
      await this.#toUpstream(message);
      if (method === 'notifications/initialized' && this.#upstreamHasTools) this.#relist();
      return;
    }
    const id = message.id as RequestId;
    let call: TracedCall | undefined;
    if (method === 'tools/call') {
      call = this.#options.tracing?.start(message);
      // A call that comes while the tools are being listed is judged against the new list.
      await this.#listing;
      const judgement = this.#catalog.judge(message);
      this.#report(judgement, message, call);
      if (judgement.kind === 'invalid' && !this.#options.forwardInvalid) {
        call?.end(judgement.response);
        await this.#toClient(judgement.response);
        return;
      }
      if (judgement.kind === 'valid') message = judgement.message;
      if (call !== undefined) message = call.carry(message);
    }
    this.#track(id, method, message, call);
    // Sent, not awaited: over HTTP a request's send lasts until its answer has streamed in, and the client's answers
    // to what the server asks meanwhile (elicitation, sampling) must not queue behind it. Sends still start in order.
    void this.#toUpstream(message);
  }

  #report(judgement: Judgement, message: Message, call: TracedCall | undefined): void {
    if (judgement.kind === 'forward') return;
    const params = message.params as Record<string, unknown>;
    const outcome =
      judgement.kind === 'invalid'
        ? this.#options.forwardInvalid
          ? 'forwarded_invalid'
          : 'refused'
        : judgement.record.repairs.length > 0
          ? 'repaired'
          : 'valid';
    call?.judged(judgement.record, outcome);
    this.#options.onCall?.({
      tool: params.name as string,
      id: message.id as RequestId,
      outcome,
      record: judgement.record,
      sent: params.arguments,
    });
  }

  #track(id: RequestId, method: string, message: Message, call: TracedCall | undefined): void {
    const params = isJsonObject(message.params) ? message.params : undefined;
    const meta = params !== undefined && isJsonObject(params._meta) ? params._meta : undefined;
    const key = JSON.stringify(id);
    const timer = setTimeout(() => {
      this.#timedOut(key);
    }, this.#options.timeoutMs);
    this.#pending.set(key, { id, method, progressToken: meta?.progressToken, timer, call });
  }

  #timedOut(key: string): void {
    const pending = this.#pending.get(key);
    if (pending === undefined) return;
    this.#pending.delete(key);
    this.#onAnswered?.();
    const noise = this.#options.upstreamNoise?.();
    const why =
      noise === undefined
        ? `the upstream server did not answer "${pending.method}" within ${this.#options.timeoutMs} ms (it hangs, or is busy)`
        : `the upstream server did not answer "${pending.method}" within ${this.#options.timeoutMs} ms; it does not speak MCP ` +
          `on its standard output, which had: ${noise}`;
    pending.call?.end(why);
    void this.#toClient(errorResponse(pending.id, REQUEST_TIMEOUT, `toolcall-normalizer mcp-proxy: ${why}`));
  }

  #fromUpstream(message: Message): void {
    if (this.#upstreamClosed) return;
    const method = typeof message.method === 'string' ? message.method : undefined;
    if (method === undefined && 'id' in message) {
      const key = JSON.stringify(message.id);
      const own = this.#own.get(key);
      if (own !== undefined) {
        this.#own.delete(key);
        clearTimeout(own.timer);
        own.resolve(message);
        return;
      }
      const pending = this.#pending.get(key);
      // An answer that came after the proxy answered for it (timed out) is dropped: the client has its answer.
      if (pending === undefined) return;
      this.#pending.delete(key);
      clearTimeout(pending.timer);
      pending.call?.end(message);
      this.#onAnswered?.();
      if (pending.method === 'initialize' && isJsonObject(message.result)) {
        const capabilities = message.result.capabilities;
        this.#upstreamHasTools = isJsonObject(capabilities) && capabilities.tools !== undefined;
      }
      void this.#toClient(message);
      return;
    }
    let related: RequestId | undefined;
    if (method === 'notifications/progress' && isJsonObject(message.params)) {
      const token = message.params.progressToken;
      for (const pending of this.#pending.values()) {
        if (pending.progressToken === undefined || pending.progressToken !== token) continue;
        pending.timer.refresh();
        related = pending.id;
      }
    }
    // Over HTTP, a message the upstream sends while a client request is open goes on that request's stream.
    related ??= [...this.#pending.values()].at(-1)?.id;
    if (method === 'notifications/tools/list_changed') this.#relist();
    void this.#toClient(message, related);
  }

  /** Lists the upstream's tools again; a listing asked for while one runs runs once it ends. */
  #relist(): void {
    if (this.#listingRuns) {
      this.#listAgain = true;
      return;
    }
    this.#listingRuns = true;
    this.#listing = (async () => {
      do {
        this.#listAgain = false;
        await this.#listOnce();
      } while (this.#wantsAnotherListing());
      this.#listingRuns = false;
    })();
  }

  #wantsAnotherListing(): boolean {
    return this.#listAgain && !this.#closed;
  }

  async #listOnce(): Promise<void> {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const answer = await this.#request('tools/list', cursor === undefined ? {} : { cursor });
        if (!isJsonObject(answer.result) || !Array.isArray(answer.result.tools)) {
          const why =
            isJsonObject(answer.error) && typeof answer.error.message === 'string' ? answer.error.message : 'no tools in its answer';
          throw new Error(why);
        }
        tools.push(...answer.result.tools);
        const next = answer.result.nextCursor;
        if (typeof next !== 'string') break;
        cursor = next;
      }
    } catch (error) {
      if (!this.#closed) {
        this.#options.onWarning?.(
          `cannot list the upstream's tools (its calls go on unchanged until a listing succeeds): ${errorText(error)}`,
        );
      }
      return;
    }
    const unusable: UnusableTool[] = this.#catalog.replace(tools);
    for (const tool of unusable) {
      this.#options.onWarning?.(
        `the input schema of tool "${tool.tool}" cannot be used, so its calls go on unchanged: ${tool.reason}`,
        tool.tool,
      );
    }
  }

  /** One request of the proxy's own to the upstream. */
  #request(method: string, params: Record<string, unknown>): Promise<Message> {
    const id = `${OWN_ID_PREFIX}${++this.#ownCount}`;
    return new Promise<Message>((resolve, reject) => {
      const key = JSON.stringify(id);
      const timer = setTimeout(() => {
        this.#own.delete(key);
        reject(new Error(`no answer to "${method}" within ${this.#options.timeoutMs} ms`));
      }, this.#options.timeoutMs);
      this.#own.set(key, { resolve, reject, timer });
      this.#upstream.send({ jsonrpc: '2.0', id, method, params }).catch((error: unknown) => {
        this.#own.delete(key);
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      });
    });
  }

  async #toUpstream(message: Message): Promise<void> {
    try {
      await this.#upstream.send(message as unknown as JSONRPCMessage);
    } catch (error) {
      // The request's answer is the reason it could not be sent; a lost notification has no one to tell.
      if (typeof message.method === 'string' && 'id' in message) {
        const key = JSON.stringify(message.id);
        const pending = this.#pending.get(key);
        if (pending !== undefined) clearTimeout(pending.timer);
        this.#pending.delete(key);
        const why = `toolcall-normalizer mcp-proxy: cannot send "${message.method}" to the upstream server: ${errorText(error)}`;
        pending?.call?.end(why);
        await this.#toClient(errorResponse(message.id as RequestId, CONNECTION_CLOSED, why));
      }
    }
  }

  async #toClient(message: Message, relatedRequestId?: RequestId): Promise<void> {
    try {
      await this.#client.send(message as unknown as JSONRPCMessage, relatedRequestId === undefined ? undefined : { relatedRequestId });
    } catch (error) {
      this.#options.onWarning?.(`cannot send a message to the client: ${errorText(error)}`);
    }
  }

  /** Resolves once every client request has its answer (each is bounded by its timeout). */
  async #drained(): Promise<void> {
    while (this.#pending.size > 0 && !this.#upstreamClosed) {
      await new Promise<void>((resolve) => {
        this.#onAnswered = resolve;
      });
    }
  }

  async #close(side: 'client' | 'upstream'): Promise<void> {
    if (side === 'upstream') this.#upstreamClosed = true;
    this.#onAnswered?.();
    if (this.#closed) return;
    this.#closed = true;
    for (const own of this.#own.values()) {
      clearTimeout(own.timer);
      own.reject(new Error('the connection closed'));
    }
    this.#own.clear();
    if (side === 'upstream') {
      const why = this.#options.upstreamGone?.() ?? 'the upstream server closed the connection';
      for (const pending of this.#pending.values()) {
        clearTimeout(pending.timer);
        pending.call?.end(why);
        await this.#toClient(
          errorResponse(pending.id, CONNECTION_CLOSED, `toolcall-normalizer mcp-proxy: ${why} before answering "${pending.method}"`),
        );
      }
      this.#pending.clear();
      await this.#client.close().catch(() => undefined);
    } else {
      // A client that closes its side (stdin at end) has said all it will: its last requests still get answers.
      await this.#chain;
      await this.#drained();
      for (const pending of this.#pending.values()) {
        clearTimeout(pending.timer);
        pending.call?.end('the connection closed');
      }
      this.#pending.clear();
      await this.#upstream.close().catch(() => undefined);
    }
    this.#resolveDone();
  }
}

function errorResponse(id: RequestId, code: number, message: string): Message {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n', 1)[0] ?? text;
}
