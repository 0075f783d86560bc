/** Prints every finding of one corpus folder's tools.json, one block per tool, for labelling by reading. */
import { readFileSync } from 'node:fs';
import { auditTool } from '../../src/audit/index.js';
import type { JsonValue } from '../../src/core/shared/json.js';
import { parseToolDefinition } from '../../src/core/schema/tool-definition.js';

const file = process.argv[2] ?? '';
const read0 = JSON.parse(readFileSync(file, 'utf8')) as JsonValue[] | { tools: JsonValue[] };
for (const tool of Array.isArray(read0) ? read0 : read0.tools) {
  const read = parseToolDefinition(tool, 'unnamed');
  if (!read.ok) {
    console.log(`!! ${read.reason}`);
    continue;
  }
  const findings = auditTool(read.definition);
  for (const f of findings)
    console.log(`${read.definition.name}\t${f.layer}\t${f.parameter ?? '-'}\t${f.keyword}\t${f.confidence}\t${f.evidence.slice(0, 160)}`);
}
