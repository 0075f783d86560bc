/**
 * The audit on tool sets its rules were not written against (test/fixtures/audit/unseen: public MCP servers, each
 * listed by running the server as its registry publishes it; scripts/audit-corpus/regenerate.ts). Each server's
 * labels.json classifies, by reading, every finding and every conflict seen: `must-find`, `acceptable`, `must-not`,
 * with the quoted text. The rules are tuned on the `training` servers only; the figures that count are those of the
 * `held-out` servers (`npm run audit:unseen`).
 */
import { describe, expect, it } from 'vitest';
import { describeFigures, loadCorpus, ratio, RESERVED, score } from '../../../scripts/audit-corpus/score.js';
import { applyFix, auditTool } from '../../../src/audit/index.js';
import { createSchemaCompiler } from '../../../src/core/validation/validate.js';

const corpus = loadCorpus();
const heldOut = corpus.filter((s) => s.split === 'held-out');
const training = corpus.filter((s) => s.split === 'training');

describe('the unseen corpus', () => {
  it('holds at least 250 tools from at least 15 servers and 3 schema ecosystems, split by server', () => {
    const tools = corpus.reduce((n, s) => n + s.definitions.length, 0);
    expect(tools).toBeGreaterThanOrEqual(250);
    expect(corpus.length).toBeGreaterThanOrEqual(15);
    const ecosystems = new Set(corpus.map((s) => s.ecosystem));
    for (const e of ['zod', 'pydantic', 'go']) expect(ecosystems).toContain(e);
    // The held-out servers are the last draw labelled blind; each draw moves to training once read. The fifth and the
    // sixth and the seventh were read: none is held out until the next draw. A draw holds three ecosystems.
    if (heldOut.length > 0) expect(new Set(heldOut.map((s) => s.ecosystem)).size).toBeGreaterThanOrEqual(3);
    for (const draw of [FIFTH_DRAW, SIXTH_DRAW, SEVENTH_DRAW]) expect(draw.every((name) => corpus.some((s) => s.name === name))).toBe(true);
  });

  it('holds none of the servers kept for checking the audit from outside', () => {
    expect(corpus.filter((s) => (RESERVED as readonly string[]).includes(s.repository)).map((s) => s.name)).toEqual([]);
  });

  it('labels only tools and parameters that exist, each with a class and the quoted text', () => {
    for (const server of corpus) {
      const byName = new Map(server.definitions.map((d) => [d.name, d]));
      for (const [tool, labels] of Object.entries(server.labels)) {
        const definition = byName.get(tool);
        expect(definition, `${server.name} ${tool}`).toBeDefined();
        const properties = (definition?.inputSchema.properties ?? {}) as Record<string, unknown>;
        for (const label of labels) {
          expect(['must-find', 'acceptable', 'must-not'], `${server.name} ${tool}`).toContain(label.class);
          expect(label.quote.length, `${server.name} ${tool}`).toBeGreaterThan(0);
          if (label.parameter !== null)
            expect(Object.hasOwn(properties, label.parameter), `${server.name} ${tool} ${label.parameter}`).toBe(true);
        }
      }
    }
  });
});

describe('suggestions on the unseen corpus', () => {
  it('every fix, applied verbatim, leaves a schema the worker compiles', () => {
    const compiler = createSchemaCompiler();
    const broken: string[] = [];
    for (const server of corpus)
      for (const definition of server.definitions)
        for (const finding of auditTool(definition)) {
          if (finding.fix === undefined) continue;
          const result = compiler.compile(applyFix(definition.inputSchema, finding.fix));
          if (!result.ok) broken.push(`${finding.id}: ${result.diagnostic.message}`);
        }
    expect(broken).toEqual([]);
  }, 300_000);
});

describe('figures on the held-out servers', () => {
  const figures = score(heldOut);
  // The last draw, labelled blind (HELD_OUT_FLOOR: its blind figures); none while every draw has been read.
  it.skipIf(heldOut.length === 0)(
    'prints recall and precision, overall and per confidence level',
    () => {
      console.log(describeFigures('held-out', figures));
      console.log(describeFigures('training', score(training)));
      console.log(
        [
          '  held-out not worth fixing:',
          ...figures.wrong.map((w) => `    ${w}`),
          '  held-out missed:',
          ...figures.misses.map((m) => `    ${m}`),
        ].join('\n'),
      );
      // Floors at today's figures (docs/audit.md): a change that loses ground on servers it was not tuned on fails.
      expect(ratio(figures.correct, figures.found)).toBeGreaterThanOrEqual(HELD_OUT_FLOOR.precision);
      expect(ratio(figures.recalled, figures.mustFind)).toBeGreaterThanOrEqual(HELD_OUT_FLOOR.recall);
      const high = figures.byConfidence.high ?? { found: 0, correct: 0 };
      expect(ratio(high.correct, high.found)).toBeGreaterThanOrEqual(HELD_OUT_FLOOR.high);
    },
    300_000,
  );
});

describe('figures on the training servers', () => {
  it('keep what the rules were tuned to', () => {
    const figures = score(training);
    const high = figures.byConfidence.high ?? { found: 0, correct: 0 };
    expect(ratio(figures.correct, figures.found)).toBeGreaterThanOrEqual(TRAINING_FLOOR.precision);
    expect(ratio(figures.recalled, figures.mustFind)).toBeGreaterThanOrEqual(TRAINING_FLOOR.recall);
    expect(ratio(high.correct, high.found)).toBeGreaterThanOrEqual(TRAINING_FLOOR.high);
  }, 300_000);
});

// The fifth held-out draw (gitlab, airtable, aws-cloudwatch, aws-dataprocessing, slack: 135 tools), labelled blind
// before the audit was run on it, then the findings no label covered classified by reading: 0.82 (126/154), 0.65
// (106/162), high 1.00 (45/45). Short of the goal on recall (0.8): docs/audit.md says where.
// Read since (its misses ruled on, so training now): 0.91 (174/192), 0.90 (146/162), high 1.00 (56/56), not blind.
const FIFTH_DRAW = ['gitlab', 'airtable', 'aws-cloudwatch', 'aws-dataprocessing', 'slack'];
const FIFTH_DRAW_FLOOR = { precision: 0.81, recall: 0.65, high: 1 };
// The sixth held-out draw (todoist, railway: zod; aws-iam: pydantic; podman: Go; 101 tools), labelled blind before
// the audit was run on it, its unlabelled findings then classified: 0.72 (36/50), 0.63 (22/35), high 1.00 (8/8).
// Read since (its misses ruled on, so training now): 0.78 (42/54), 0.80 (28/35), high 1.00 (11/11), not blind.
const SIXTH_DRAW = ['todoist', 'railway', 'aws-iam', 'podman'];
const SIXTH_DRAW_FLOOR = { precision: 0.72, recall: 0.62, high: 1 };
// The seventh held-out draw (hubspot, brightdata, pinecone, flux159-kubernetes: zod; chroma, tree-sitter: pydantic;
// mark3labs-filesystem: Go; 111 tools), labelled blind before the audit was run on it (every finding it made had a
// label): 0.69 (35/51), 0.67 (34/51), high 1.00 (3/3). Read since.
const SEVENTH_DRAW = ['hubspot', 'brightdata', 'pinecone', 'flux159-kubernetes', 'chroma', 'tree-sitter', 'mark3labs-filesystem'];
const SEVENTH_DRAW_FLOOR = { precision: 0.68, recall: 0.66, high: 1 };
// The next held-out draw's floor: the last blind figures (the seventh draw's) until it has its own.
const HELD_OUT_FLOOR = SEVENTH_DRAW_FLOOR;
// Training (46 servers, 941 tools, every draw): 0.89 (658/742), 0.89 (422/475), high 1.00 (167/167).
const TRAINING_FLOOR = { precision: 0.88, recall: 0.88, high: 1 };

// A read draw's blind figures stay a floor now that it is in training: the rules may not lose on it.
describe.each([
  { draw: 'fifth', servers: FIFTH_DRAW, floor: FIFTH_DRAW_FLOOR },
  { draw: 'sixth', servers: SIXTH_DRAW, floor: SIXTH_DRAW_FLOOR },
  { draw: 'seventh', servers: SEVENTH_DRAW, floor: SEVENTH_DRAW_FLOOR },
])('figures on the $draw draw', ({ draw, servers, floor }) => {
  it('scores at least what it scored blind', () => {
    const figures = score(corpus.filter((s) => servers.includes(s.name)));
    console.log(describeFigures(`${draw} draw (read)`, figures));
    const high = figures.byConfidence.high ?? { found: 0, correct: 0 };
    expect(ratio(figures.correct, figures.found)).toBeGreaterThanOrEqual(floor.precision);
    expect(ratio(figures.recalled, figures.mustFind)).toBeGreaterThanOrEqual(floor.recall);
    expect(ratio(high.correct, high.found)).toBeGreaterThanOrEqual(floor.high);
  }, 300_000);
});
