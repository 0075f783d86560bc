/**
 * `import { normalizeMcpServer } from 'toolcall-normalizer/mcp'`: RT-TOOL-8 inside an MCP server built on the MCP
 * TypeScript SDK (`@modelcontextprotocol/sdk` 1.x).
 *
 * The hook is the server's `tools/call` request handler: the SDK's own handler (McpServer's, which validates the
 * arguments against the tool's zod schema and then runs it) is wrapped, so every call is normalized first against
 * the input schema the same client reads from `tools/list`. A call the rule repaired reaches the SDK, and so the
 * tool, repaired; one still invalid is answered `isError: true` with our diagnostics as its text, for the agent to
 * act on. Calls the rule cannot judge (unknown or disabled tool, a schema we cannot compile, a malformed request)
 * go to the SDK untouched. Nothing here loads the SDK: both lines keep their handlers the same way, and
 * {@link McpServerLike} names the little of the server that is used.
 */
import { isJsonObject } from '../core/shared/json.js';
import type { OutputRecord } from '../core/shared/types.js';
import { checkedPipelineOptions, type RuleOptions } from './options.js';
import { deferredToServer, describeErrors } from './mcp-refusal.js';
import { runRecord } from './run.js';
import { ToolCache } from './tools.js';
import type { CompiledTool } from '../core/schema/tool.js';

/** A tools/call request as it reached the server. */
export interface McpToolCall {
  readonly name: string;
  /** The arguments as the client sent them. */
  readonly arguments: unknown;
}

/** Options of {@link normalizeMcpServer}: the rule's options, and a callback for each output record. */
export interface NormalizeMcpServerOptions extends RuleOptions {
  /**
   * Called with the output record of every call normalized (valid or not) and the call as sent, before the tool
   * runs or the error is returned. An exception thrown here fails the request.
   */
  readonly onRecord?: (record: OutputRecord, call: McpToolCall) => void;
}

/**
 * What {@link normalizeMcpServer} uses of an `McpServer`, the same in the SDK's 1.x and 2.x: the protocol `server`
 * (whose request handlers it wraps) and `sendToolListChanged` (which tells it the tool list changed).
 */
export interface McpServerLike {
  readonly server: object;
  sendToolListChanged(): void;
}

type RequestHandler = (request: unknown, extra: unknown) => Promise<unknown>;

/** Pages of `tools/list` read at most to find a tool (McpServer sends one page, but the protocol allows more). */
const MAX_LIST_PAGES = 100;

const wrapped = new WeakSet<object>();

/**
 * Makes every `tools/call` of `server` normalize its arguments against the tool's advertised input schema before
 * the SDK validates them. Call it once the tools are registered (`registerTool`/`tool`), before or after
 * `connect`; tools registered, updated, enabled, disabled or removed later (through the SDK's API, which announces
 * each change with `sendToolListChanged`) are seen at their next call. A second call on the same server changes
 * nothing.
 *
 * @returns the same server.
 * @throws TypeError when the server has no `tools/call` or `tools/list` handler yet (no tool registered), or is
 *   not an McpServer of the MCP TypeScript SDK (1.x or 2.x); TypeError or RangeError for a bad option.
 */
export function normalizeMcpServer<S extends McpServerLike>(server: S, options: NormalizeMcpServerOptions = {}): S {
  const where = 'normalizeMcpServer';
  const pipeline = checkedPipelineOptions(options, ['onRecord'], where);
  const onRecord = options.onRecord;
  if (onRecord !== undefined && typeof onRecord !== 'function') throw new TypeError(`${where}: "onRecord" must be a function`);
  const protocol: unknown = isObject(server) ? server.server : undefined;
  // The SDK (1.x and 2.x) keeps its handlers, called as (request, extra or ctx), in this Map; its public API can
  // replace a handler but not read one.
  const handlers = isObject(protocol) ? protocol._requestHandlers : undefined;
  if (!(handlers instanceof Map))
    throw new TypeError(`${where}: expects an McpServer of @modelcontextprotocol/sdk 1.x or @modelcontextprotocol/server 2.x`);
  if (wrapped.has(handlers)) return server;
  const callTool = handlers.get('tools/call') as RequestHandler | undefined;
  const listTools = handlers.get('tools/list') as RequestHandler | undefined;
  if (typeof callTool !== 'function' || typeof listTools !== 'function') {
    throw new TypeError(`${where}: the server has no tools/call handler yet; register its tools (registerTool or tool) first`);
  }
  const cache = new ToolCache();
  // What tools/list publishes, by tool name (null: not listed), read once per change of the tool list: reading it
  // converts every tool's zod schema, too slow for every call. McpServer announces every registration, update,
  // removal, enabling and disabling through sendToolListChanged, connected or not.
  const advertised = new Map<string, CompiledTool | null>();
  const announce = server.sendToolListChanged.bind(server);
  server.sendToolListChanged = () => {
    advertised.clear();
    announce();
  };

  const normalized: RequestHandler = async (request, extra) => {
    if (!isObject(request) || !isObject(request.params) || typeof request.params.name !== 'string') return callTool(request, extra);
    const params = request.params;
    const name = request.params.name;
    let tool = advertised.get(name);
    if (tool === undefined) {
      const inputSchema = await advertisedSchema(listTools, name, extra);
      tool = inputSchema === undefined ? null : cache.schema(name, inputSchema);
      advertised.set(name, tool);
    }
    if (tool === null) return callTool(request, extra);
    const compiled = tool;
    const sent = params.arguments;
    const envelope = { jsonrpc: '2.0', id: request.id ?? null, method: 'tools/call', params: { name, arguments: sent } };
    const records = runRecord(envelope, (called) => (called === name ? compiled : undefined), pipeline);
    if (onRecord !== undefined) for (const record of records) onRecord(record, { name, arguments: sent });
    const record = records[0];
    if (record === undefined) return callTool(request, extra);
    if (record.valid) {
      if (record.repairs.length === 0 && typeof sent !== 'string') return callTool(request, extra);
      return callTool({ ...request, params: { ...params, arguments: record.arguments } }, extra);
    }
    if (deferredToServer(record)) return callTool(request, extra);
    return { content: [{ type: 'text', text: describeErrors(name, record) }], isError: true };
  };
  handlers.set('tools/call', normalized);
  wrapped.add(handlers);
  return server;
}

/** The input schema `tools/list` publishes for `name` to this client, read through the server's own handler. */
async function advertisedSchema(listTools: RequestHandler, name: string, extra: unknown): Promise<unknown> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const listed = await listTools({ jsonrpc: '2.0', id: 0, method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, extra);
    if (!isObject(listed) || !Array.isArray(listed.tools)) return undefined;
    const tool: unknown = listed.tools.find((entry: unknown) => isObject(entry) && entry.name === name);
    if (isObject(tool)) return tool.inputSchema;
    if (typeof listed.nextCursor !== 'string') return undefined;
    cursor = listed.nextCursor;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return isJsonObject(value);
}

export type { OutputRecord } from '../core/shared/types.js';
