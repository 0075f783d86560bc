/**
 * How a tool definition is stored in a schema registry, and how registry subjects are named.
 *
 * A registry subject holds one JSON Schema per version, nothing else. So the document registered for a tool is
 * its input schema with the tool kept inside it: an `x-tool` object with the tool's `name` and `description`
 * (an `x-` key, which JSON Schema validators ignore as an unknown annotation), and a top-level `description`
 * set to the tool's when the schema has none (so registry UIs and plain schema consumers still show it).
 *
 * Pure: no I/O, no environment, inputs never mutated.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../shared/json.js';
import { parseToolDefinition, type ToolDefinition, type ToolDefinitionResult } from './tool-definition.js';

/** The key that carries the tool's name and description inside the registered document. */
export const TOOL_KEY = 'x-tool';

/** The placeholder a subject template must contain exactly once. */
export const TOOL_PLACEHOLDER = '{tool}';

/** The default subject template: the subject is the tool name (TopicNameStrategy does not apply to tools). */
export const DEFAULT_SUBJECT_TEMPLATE = TOOL_PLACEHOLDER;

/**
 * Why `template` cannot name subjects, or undefined when it can. It must contain `{tool}` exactly once: without
 * it every tool would share one subject, and with it twice a subject could not be mapped back to its tool.
 */
export function subjectTemplateProblem(template: string): string | undefined {
  const count = template.split(TOOL_PLACEHOLDER).length - 1;
  if (count === 1) return undefined;
  return `the subject template must contain ${TOOL_PLACEHOLDER} exactly once, got "${template}"`;
}

let splitTemplate = TOOL_PLACEHOLDER;
let splitParts = ['', ''];

/**
 * The registry subject of `tool`. Plain substitution (not `String.replace`, whose replacement string treats
 * `$&`, `$1`... specially: tool names come from models and may contain `$`).
 */
export function subjectFor(tool: string, template: string): string {
  // The worker asks for every record (schema cache key): split each template once, not per call.
  if (template !== splitTemplate) {
    splitParts = template.split(TOOL_PLACEHOLDER);
    splitTemplate = template;
  }
  return splitParts.length === 2 ? `${splitParts[0] ?? ''}${tool}${splitParts[1] ?? ''}` : splitParts.join(tool);
}

/**
 * The longest registry subject, in UTF-16 code units. Real tool names are short (OpenAI, Anthropic and Gemini cap
 * them at 64 to 128 characters), so this leaves ample room for a subject template, while a subject at the bound
 * still makes a request line (~1 KB when ASCII) far below the smallest usual server limits (4 KB for
 * Vert.x/Quarkus, which Apicurio runs on; 8 KB for Jetty and nginx). Longer names get 414/431 or a reset
 * connection, which would look like an outage: the worker treats them as unknown tools instead.
 */
export const MAX_SUBJECT_CHARS = 1_000;

/** `String.prototype.isWellFormed`: in Node 20, not in the ES2023 lib this project compiles against. */
interface WellFormed {
  isWellFormed(): boolean;
}

/**
 * Why no registry subject can be `subject`, or undefined when one can. Not well-formed UTF-16 (a lone surrogate:
 * `encodeURIComponent` throws), empty, `.` or `..` (URL parsers collapse them into another path), or longer than
 * {@link MAX_SUBJECT_CHARS}. The message never quotes the subject: it may be huge or unprintable.
 */
export function subjectProblem(subject: string): string | undefined {
  if (subject.length > MAX_SUBJECT_CHARS) {
    return `the registry subject of this tool name is ${subject.length} characters long, over the ${MAX_SUBJECT_CHARS}-character limit`;
  }
  if (subject === '') return 'the registry subject of this tool name is empty';
  if (subject === '.' || subject === '..')
    return `the registry subject of this tool name is "${subject}", which cannot be addressed in a registry URL`;
  if (!(subject as string & WellFormed).isWellFormed())
    return 'the tool name is not well-formed Unicode (it holds a lone surrogate), so it cannot name a registry subject';
  return undefined;
}

/** The tool part of `subject` under `template`, or undefined when the subject does not follow the template. */
export function toolFromSubject(subject: string, template: string): string | undefined {
  if (subjectTemplateProblem(template) !== undefined) return undefined;
  const at = template.indexOf(TOOL_PLACEHOLDER);
  const prefix = template.slice(0, at);
  const suffix = template.slice(at + TOOL_PLACEHOLDER.length);
  if (subject.length <= prefix.length + suffix.length) return undefined;
  if (!subject.startsWith(prefix) || !subject.endsWith(suffix)) return undefined;
  return subject.slice(prefix.length, subject.length - suffix.length);
}

/**
 * The document to register for `def`: its input schema plus `x-tool: {name, description}` (description only
 * when the tool has one), `description` set to the tool's when the schema has none, and an empty `properties`
 * when the schema has neither `properties` nor `$schema` (see below). An `x-tool` already in the schema is
 * replaced: the definition is the authority on the tool's name.
 */
export function toRegistryDocument(def: ToolDefinition): JsonObject {
  const tool: JsonObject = { name: def.name };
  if (def.description !== undefined) tool.description = def.description;
  const doc = omitKey(def.inputSchema, TOOL_KEY);
  if (!Object.hasOwn(doc, 'description') && def.description !== undefined) doc.description = def.description;
  // Apicurio 3.3 ignores `schemaType` and sniffs the content: without `$schema` or `properties` it answers 422
  // (42201, "Failed to discover artifact type from content"), so a parameterless tool (`{"type": "object"}`)
  // could not be registered. An empty `properties` constrains nothing (also not with `additionalProperties`).
  // We add it rather than a `$schema`, which would make Apicurio's compatibility checker fail on every schema.
  if (!Object.hasOwn(doc, '$schema') && !Object.hasOwn(doc, 'properties')) doc.properties = {};
  doc[TOOL_KEY] = tool;
  return doc;
}

/**
 * Reads a registered document back into a tool definition (the inverse of {@link toRegistryDocument}, except
 * that the `description` and empty `properties` it may have added stay: both are annotations or no-ops).
 *
 * With `x-tool`: the tool's name and description come from it and the input schema is the document without it.
 * Without `x-tool` (a schema registered by other means) the document is read like a file in a schema directory
 * (a bare JSON Schema, or an MCP/Anthropic/OpenAI definition), named after the subject's tool part when
 * `template` is given and the subject follows it, else after the whole subject.
 */
export function fromRegistryDocument(doc: JsonValue, subject: string, template?: string): ToolDefinitionResult {
  const fallbackName = (template === undefined ? undefined : toolFromSubject(subject, template)) ?? subject;
  if (!isJsonObject(doc)) return { ok: false, reason: 'the registered schema is not a JSON object' };
  if (!Object.hasOwn(doc, TOOL_KEY)) return parseToolDefinition(doc, fallbackName);

  const tool = doc[TOOL_KEY];
  if (!isJsonObject(tool)) return { ok: false, reason: `"${TOOL_KEY}" must be an object with the tool's name and description` };
  const name = tool.name ?? fallbackName;
  if (typeof name !== 'string' || name.trim() === '') return { ok: false, reason: `"${TOOL_KEY}.name" must be a non-empty string` };
  const description = tool.description;
  if (description !== undefined && typeof description !== 'string') {
    return { ok: false, reason: `"${TOOL_KEY}.description" must be a string` };
  }
  return { ok: true, definition: { name, description, inputSchema: omitKey(doc, TOOL_KEY) } };
}

/**
 * A shallow copy of `object` without `key`. `Object.fromEntries` creates own data properties (it never calls the
 * `__proto__` setter), so a `__proto__` key in a schema stays plain data and the input is not mutated.
 */
function omitKey(object: JsonObject, key: string): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));
}

export interface ParsedRegistryUrl {
  /** Without userinfo, query, fragment or trailing slash: safe to show. */
  readonly baseUrl: string;
  readonly username: string | undefined;
  readonly password: string | undefined;
}

/**
 * Splits a registry URL into a base URL safe to show and the credentials it may embed
 * (`https://user:pass@host/...`). Messages never quote the input: it may hold a password.
 *
 * @throws RangeError when the URL is not an absolute http(s) URL without query or fragment.
 */
export function parseRegistryUrl(url: string): ParsedRegistryUrl {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RangeError('the schema registry URL is not a valid absolute URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new RangeError(`the schema registry URL must be http or https, not ${parsed.protocol.replace(/:$/, '')}`);
  }
  if (parsed.search !== '' || parsed.hash !== '') throw new RangeError('the schema registry URL must not have a query or fragment');
  const username = parsed.username === '' ? undefined : decodeURIComponent(parsed.username);
  const password = parsed.password === '' ? undefined : decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  return { baseUrl: parsed.href.replace(/(?<!\/)\/+$/, ''), username, password };
}
