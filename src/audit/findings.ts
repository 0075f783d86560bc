/**
 * The finding list the prose/schema diff (audit/diff.ts) fills, one finding per id, and how evidence is quoted.
 *
 * Pure: no I/O.
 */
import type { JsonValue } from '../core/shared/json.js';
import { truncate } from '../core/shared/text.js';
import type { Candidate } from './candidates.js';
import type { AuditNode } from './schema-nav.js';
import { type AuditLayer, type Confidence, type Finding, findingId, type SchemaFix } from './types.js';

/** A candidate attributed to a node, with the sentence it came from. */
export interface Claim {
  readonly node: AuditNode;
  readonly candidate: Candidate;
  readonly sentence: string;
  /** True when the claim comes from the tool description (attributed), false from the node's own description. */
  readonly fromTool: boolean;
}

/** What a finding says beyond its place: how sure it is and the fix as a schema change. */
export interface FindingMeta {
  /**
   * Default: `high` for a prose-only finding from the parameter's own description, `medium` from the tool
   * description, `low` for schema-only.
   */
  readonly confidence?: Confidence | undefined;
  readonly fix?: SchemaFix | undefined;
  /** The claim behind a prose-only finding (its source decides the default confidence). */
  readonly claim?: Claim | undefined;
}

export class FindingList {
  readonly #byId = new Map<string, Finding>();
  constructor(readonly tool: string) {}

  add(
    layer: AuditLayer,
    parameter: string | null,
    keyword: string,
    location: string,
    path: string,
    evidence: string,
    suggestion: string,
    meta: FindingMeta = {},
  ): void {
    const id = findingId(layer, this.tool, parameter, keyword, location);
    if (this.#byId.has(id)) return;
    const confidence = meta.confidence ?? (layer === 'schema-only' ? 'low' : meta.claim?.fromTool === true ? 'medium' : 'high');
    const finding: Finding = { id, tool: this.tool, parameter, layer, keyword, evidence, suggestion, path, confidence };
    this.#byId.set(id, meta.fix === undefined ? finding : { ...finding, fix: meta.fix });
  }

  list(): Finding[] {
    return [...this.#byId.values()];
  }
}

export function quote(text: string, max = 200): string {
  // A bounded prefix is flattened: quoting each claim of a long sentence reads a few hundred characters, not all of it.
  const window = 4 * max;
  const head = text.trimStart();
  const flat = head.slice(0, window).replace(/\s+/g, ' ').trimEnd();
  return head.length > window && flat.length < max ? `${flat}…` : truncate(flat, max);
}

export function json(value: JsonValue): string {
  return truncate(JSON.stringify(value), 200);
}
