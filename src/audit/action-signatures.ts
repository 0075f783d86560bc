/**
 * The signatures of a multiplexed tool: one parameter picks the action (`"enum": ["list", "create", ...]`) and the
 * description lists what each action takes, a line each ("create (project_id, name; optional description)"). A
 * parameter every action needs is required of every call, whatever the schema says.
 *
 * Pure: no I/O. Line by line, so linear in the text.
 */
import type { AuditNode } from './schema-nav.js';
import { listedValues } from './schema-nav.js';

export interface ActionSignatures {
  /** The parameters named before "optional" in every action's signature. */
  readonly requiredByAll: readonly string[];
  /** The signature lines, as the evidence. */
  readonly text: string;
}

/** "  create (project_id, name; optional description) -- note", "- `list` (no required params)". */
const SIGNATURE = /^[ \t]*(?:[-*][ \t]+)?`?([A-Za-z_][\w-]*)`?[ \t]*\(([^()\n]*)\)/;

/** Where the optional part of a signature starts: "; optional a, b", "optional a", "[a, b]". */
const OPTIONAL_PART = /;|\boptional\b|\[/i;

export function actionSignatures(text: string, topLevel: readonly AuditNode[]): ActionSignatures | undefined {
  const parameters = new Set(topLevel.map((n) => n.parameter));
  for (const selector of topLevel) {
    const actions = (listedValues(selector.view) ?? []).filter((v): v is string => typeof v === 'string');
    if (actions.length < 2) continue;
    const signatures = new Map<string, { needs: Set<string>; line: string }>();
    for (const line of text.split('\n')) {
      const m = SIGNATURE.exec(line);
      const action = m?.[1];
      if (m === null || action === undefined || !actions.includes(action) || signatures.has(action)) continue;
      const inside = m[2] ?? '';
      const cut = OPTIONAL_PART.exec(inside);
      const needs = new Set(
        inside
          .slice(0, cut?.index ?? inside.length)
          .split(',')
          .map((name) => name.trim().replace(/`/g, ''))
          .filter((name) => parameters.has(name) && name !== selector.parameter),
      );
      signatures.set(action, { needs, line: line.trim() });
    }
    // Every action has its line, or what the others share says nothing of the missing ones.
    if (signatures.size !== actions.length) continue;
    const all = [...signatures.values()];
    const requiredByAll = [...(all[0]?.needs ?? [])].filter((name) => all.every((s) => s.needs.has(name)));
    return { requiredByAll, text: all.map((s) => s.line).join(' ') };
  }
  return undefined;
}
