/**
 * What the proxy does to one `tools/call` request: the input schemas the upstream lists, and the judgement of a
 * call against them by the chain the worker, the CLI and the library run (`runRecord`). No I/O here: the relay
 * sends what this returns.
 */
import type { PipelineOptions } from '../core/pipeline.js';
import { isJsonObject } from '../core/shared/json.js';
import type { OutputRecord } from '../core/shared/types.js';
import type { CompiledTool } from '../core/schema/tool.js';
import { deferredToServer, describeErrors } from '../library/mcp-refusal.js';
import { runRecord } from '../library/run.js';
import { ToolCache } from '../library/tools.js';

/** A JSON-RPC message as the SDK's transports carry it. */
export type Message = Record<string, unknown>;

/** The `_meta` key under which a refusal carries its diagnostics as data. */
export const DIAGNOSTICS_META_KEY = 'toolcall-normalizer/diagnostics';

interface ListedTool {
  readonly compiled: CompiledTool;
  /** True when the tool declares an `outputSchema`: its client validates `structuredContent` against it. */
  readonly hasOutputSchema: boolean;
}

export type Judgement =
  /** Not ours to judge (an unknown tool, an unusable schema, a malformed request): sent on as it came. */
  | { readonly kind: 'forward'; readonly record: OutputRecord | undefined }
  /** Valid; `message` is the request to send (the same object when nothing was repaired). */
  | { readonly kind: 'valid'; readonly message: Message; readonly record: OutputRecord }
  /** Invalid after repair: `response` answers the client; with `--forward-invalid`, `message` goes on unchanged. */
  | { readonly kind: 'invalid'; readonly message: Message; readonly response: Message; readonly record: OutputRecord };

/** A tool whose listed schema cannot be used, reported once per distinct schema. */
export interface UnusableTool {
  readonly tool: string;
  readonly reason: string;
}

/** The upstream's tools as last listed (all pages), and the judgement of calls against them. */
export class ToolCatalog {
  readonly #cache = new ToolCache();
  #tools = new Map<string, ListedTool>();
  readonly #reported = new Set<string>();

  constructor(private readonly options: PipelineOptions) {}

  get size(): number {
    return this.#tools.size;
  }

  /**
   * Replaces the catalog with the tools of one complete listing (every page's `tools`, in order; a name listed
   * twice keeps its first definition). Returns the tools whose schema is unusable and not reported before.
   */
  replace(tools: readonly unknown[]): UnusableTool[] {
    const next = new Map<string, ListedTool>();
    const fresh: UnusableTool[] = [];
    for (const tool of tools) {
      if (!isJsonObject(tool) || typeof tool.name !== 'string' || next.has(tool.name)) continue;
      const compiled = this.#cache.schema(tool.name, tool.inputSchema);
      next.set(tool.name, { compiled, hasOutputSchema: tool.outputSchema !== undefined });
      if (!compiled.usable) {
        const key = `${tool.name}\u0000${compiled.diagnostic.message}`;
        if (!this.#reported.has(key)) fresh.push({ tool: tool.name, reason: compiled.diagnostic.message });
        this.#reported.add(key);
      }
    }
    this.#tools = next;
    return fresh;
  }

  /** Judges one `tools/call` request (`message.method === 'tools/call'`). */
  judge(message: Message): Judgement {
    const params = message.params;
    if (!isJsonObject(params) || typeof params.name !== 'string') return { kind: 'forward', record: undefined };
    const name = params.name;
    const listed = this.#tools.get(name);
    if (listed === undefined || !listed.compiled.usable) return { kind: 'forward', record: undefined };
    const compiled = listed.compiled;
    const sent = params.arguments;
    const envelope = { jsonrpc: '2.0', id: message.id ?? null, method: 'tools/call', params: { name, arguments: sent } };
    const record = runRecord(envelope, (called) => (called === name ? compiled : undefined), this.options)[0];
    if (record === undefined || deferredToServer(record)) {
      return { kind: 'forward', record };
    }
    if (record.valid) {
      if (record.repairs.length === 0 && typeof sent !== 'string') return { kind: 'valid', message, record };
      return { kind: 'valid', message: { ...message, params: { ...params, arguments: record.arguments } }, record };
    }
    return { kind: 'invalid', message, response: refusal(message.id, name, record, listed.hasOutputSchema), record };
  }
}

/**
 * The proxy's own answer to an invalid call: a `CallToolResult` with `isError`, its text for the agent, its
 * diagnostics as data in `_meta`, and in `structuredContent` only when the tool declares no `outputSchema` (the
 * SDK's client checks `structuredContent` against that schema even on an error, and would drop the refusal).
 */
function refusal(id: unknown, name: string, record: OutputRecord, hasOutputSchema: boolean): Message {
  const diagnostics = { errors: record.errors, repairs: record.repairs, passThroughs: record.passThroughs };
  const result: Record<string, unknown> = {
    content: [{ type: 'text', text: describeErrors(name, record) }],
    isError: true,
    _meta: { [DIAGNOSTICS_META_KEY]: diagnostics },
  };
  if (!hasOutputSchema) result.structuredContent = diagnostics;
  return { jsonrpc: '2.0', id, result };
}
