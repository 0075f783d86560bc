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
    // The held-out servers are draws labelled blind and never read (the thirteenth, nineteenth, twentieth, twenty-third
    // and thirty-third); a draw moves to training once read (the fifth to the twelfth, the fourteenth to the
    // eighteenth, the twenty-first, twenty-second and twenty-fourth to thirty-second were). The held-out draws hold
    // three ecosystems.
    if (heldOut.length > 0) expect(new Set(heldOut.map((s) => s.ecosystem)).size).toBeGreaterThanOrEqual(3);
    for (const draw of [
      FIFTH_DRAW,
      SIXTH_DRAW,
      SEVENTH_DRAW,
      EIGHTH_DRAW,
      NINTH_DRAW,
      TENTH_DRAW,
      ELEVENTH_DRAW,
      TWELFTH_DRAW,
      FOURTEENTH_DRAW,
      FIFTEENTH_DRAW,
      SIXTEENTH_DRAW,
      SEVENTEENTH_DRAW,
      EIGHTEENTH_DRAW,
      TWENTY_FIRST_DRAW,
      TWENTY_SECOND_DRAW,
      TWENTY_FOURTH_DRAW,
      TWENTY_FIFTH_DRAW,
      TWENTY_SIXTH_DRAW,
      TWENTY_SEVENTH_DRAW,
      TWENTY_EIGHTH_DRAW,
      TWENTY_NINTH_DRAW,
      THIRTIETH_DRAW,
      THIRTY_FIRST_DRAW,
      THIRTY_SECOND_DRAW,
    ])
      expect(draw.every((name) => corpus.some((s) => s.name === name && s.split === 'training'))).toBe(true);
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
  it('every fix, applied verbatim to a schema the worker compiles, leaves one it compiles', () => {
    const compiler = createSchemaCompiler();
    const broken: string[] = [];
    for (const server of corpus)
      for (const definition of server.definitions) {
        // A schema the worker already refuses (zod's email pattern needs lookahead) stays refused whatever is fixed.
        if (!compiler.compile(definition.inputSchema).ok) continue;
        for (const finding of auditTool(definition)) {
          if (finding.fix === undefined) continue;
          const result = compiler.compile(applyFix(definition.inputSchema, finding.fix));
          if (!result.ok) broken.push(`${finding.id}: ${result.diagnostic.message}`);
        }
      }
    expect(broken).toEqual([]);
  }, 300_000);
});

describe('figures on the held-out servers', () => {
  const figures = score(heldOut);
  // The draws labelled blind and never read (HELD_OUT_FLOOR: their blind figures); none while every draw has been read.
  it.skipIf(heldOut.length === 0)(
    'prints recall and precision, overall and per confidence level',
    () => {
      // Figures only: the held-out findings and misses stay unread (`score.ts --verbose` prints them when a draw is read).
      console.log(describeFigures('held-out', figures));
      console.log(describeFigures('training', score(training)));
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
// The eighth held-out draw (google-calendar, mobile-mcp: zod; elevenlabs, jupyter: pydantic; k8s-helm, flux-operator:
// Go; 129 tools), labelled blind before the audit was run on it, its unlabelled findings then classified (all
// must-not): 0.79 (79/100), 0.74 (60/81), high 0.91 (29/32). Read since: 0.95 (88/93), 0.89 (72/81), high 1.00, not blind.
const EIGHTH_DRAW = ['google-calendar', 'mobile-mcp', 'elevenlabs', 'jupyter', 'k8s-helm', 'flux-operator'];
const EIGHTH_DRAW_FLOOR = { precision: 0.79, recall: 0.74, high: 0.9 };
// The ninth held-out draw (lara, browserstack: zod; zotero, google-workspace: pydantic; gopls, slackdump: Go; 165
// tools), labelled blind before the audit was run on it, its unlabelled findings then classified: 0.90 (237/263),
// 0.76 (210/277), high 0.98 (188/191); 163 of its must-finds are google-workspace's one systemic `default: null`
// (validity): without them 0.70 (60/86), 0.41 (47/114). Read since: 0.93 (279/300), 0.89 (246/277), not blind.
const NINTH_DRAW = ['lara', 'browserstack', 'zotero', 'google-workspace', 'gopls', 'slackdump'];
const NINTH_DRAW_FLOOR = { precision: 0.89, recall: 0.75, high: 0.9 };
// The tenth held-out draw (azure-devops, paperless: zod; odoo, jenkins: pydantic; mcp-devtools, aks-mcp: Go; 177
// tools), labelled blind, its unlabelled findings then classified: 0.44 (43/98), 0.65 (34/52), high 0.81 (13/16); 33
// of its 55 wrong findings one idiom ("(Default: unknown-organization)", a placeholder the server prints). Read since:
// 0.78 (50/64), 0.79 (41/52), high 0.93, not blind.
const TENTH_DRAW = ['azure-devops', 'paperless', 'odoo', 'jenkins', 'mcp-devtools', 'aks-mcp'];
const TENTH_DRAW_FLOOR = { precision: 0.44, recall: 0.65, high: 0.8 };
// The eleventh held-out draw (coolify, xero: zod; proxmox, vish288-gitlab: pydantic; portainer, razorpay: Go; 247
// tools), labelled blind, its unlabelled findings then classified: 0.80 (111/138), 0.70 (103/147), high 0.87 (34/39).
// Read since: 0.90 (137/153), 0.88 (129/147), high 0.93, not blind.
const ELEVENTH_DRAW = ['coolify', 'xero', 'proxmox', 'vish288-gitlab', 'portainer', 'razorpay'];
const ELEVENTH_DRAW_FLOOR = { precision: 0.8, recall: 0.7, high: 0.85 };
// The twelfth held-out draw (karakeep, iterable: zod; biomcp, outline: pydantic; tiger, aio-mcp: Go; 194 tools),
// labelled blind, its unlabelled findings then classified: 0.90 (75/83), 0.64 (52/81), high 1.00 (11/11). Read since:
// 0.92 (84/91), 0.75 (61/81), high 1.00, not blind.
const TWELFTH_DRAW = ['karakeep', 'iterable', 'biomcp', 'outline', 'tiger', 'aio-mcp'];
const TWELFTH_DRAW_FLOOR = { precision: 0.89, recall: 0.64, high: 1 };
// The held-out draws, labelled blind, their unlabelled findings then classified, never read to change a rule:
// - the thirteenth (henkey-postgres, smartbear-bugsnag: zod; couchbase, mlflow: pydantic; flyctl: Go; 158 tools): 0.78
//   (35/45), 0.82 (28/34), high 1.00 (2/2) at 96f6c8d; 0.88 (37/42), 0.85 (29/34), high 1.00 (3/3) at 64f61b0;
// - the nineteenth (google-map, server-filesystem: zod; alibaba-cloud-ops, redmine: pydantic; haproxy: Go; 140 tools):
//   0.82 (63/77), 0.74 (59/80), high 0.90 (26/29) at 64f61b0;
// - the twentieth (resend, tauri: zod; notebooklm, atlan: pydantic; gitee: mcp-go; yutu: Go SDK; 241 tools): 0.89
//   (151/169), 0.43 (80/185), high 1.00 (75/75) at 04083d4 (atlan declares no type on most parameters, and the audit
//   reads no `type` from prose).
// Together at 04083d4: 0.87 (251/288), 0.57 (169/299), high 0.97 (104/107); at fd25479, with the type rule (built from
// training, though the twentieth's report had said atlan needed one): 0.88 (267/304), 0.62 (185/299), high 0.97
// (104/107);
// - the twenty-third (sanity: zod; itential, prefect: pydantic; oastools: Go SDK; 143 tools): 0.90 (64/71), 0.73 (33/45),
//   high 1.00 (16/16) at 97a537e, after every rule of the twentieth session.
// The four together at 97a537e: 0.88 (331/375), 0.63 (218/344), high 0.98 (120/123);
// The five together at the twenty-third session's end: 0.87 (434/498), 0.64 (296/466), high 0.97 (143/148);
// With the thirtieth, its unlabelled findings classified: 0.77 (523/683), 0.63 (358/572), high 0.96 (164/170); without
// it, once read, at the twenty-fourth session's end: 0.75 (424/566), 0.63 (284/450), high 0.97 (141/145) (the four held
// out longest 0.88 (335/381), 0.65 (222/344), high 0.98 (120/123)). With the thirty-first (read since, below), the
// four at the twenty-fifth session's "required for 'create'" rule (a5c8845): 0.86 (337/391), 0.66 (226/344), high 0.98;
// With the thirty-second (read since, below) instead of the thirty-third: 0.87 (405/465), 0.63 (288/459), high 0.98
// (136/139);
// - the thirty-third (alibabacloud-devops, containerization-assist, monday, todoist-community: zod; rabbitmq, yfinance:
//   pydantic, no Go server to be had; 155 tools): 0.86 (60/70), 0.49 (46/93), high 0.89 (17/19) at e5fb709, after the
//   session's rules from training; its unlabelled findings then classified: 0.87 (61/70), 0.49 (46/93), high 0.95 (18/19).
// The five together at the twenty-fifth session's end: 0.86 (399/462), 0.62 (272/437), high 0.97 (138/142) (the four
// held out longest 0.86 (338/392), 0.66 (226/344), high 0.98 (120/123)).
const HELD_OUT_FLOOR = { precision: 0.86, recall: 0.62, high: 0.97 };
// The fourteenth draw (paddle, launchdarkly: zod; langfuse, plane: pydantic; gke-mcp, vault-mcp: Go; 193 tools),
// labelled blind, its unlabelled findings then classified: 0.81 (107/132), 0.50 (77/153), high 0.83 (10/12) at
// 7324538. Read since: 0.89 (160/179), 0.85 (130/153), high 1.00 (18/18), not blind.
const FOURTEENTH_DRAW = ['paddle', 'launchdarkly', 'langfuse', 'plane', 'gke-mcp', 'vault-mcp'];
const FOURTEENTH_DRAW_FLOOR = { precision: 0.8, recall: 0.5, high: 0.83 };
// The fifteenth draw (supabase, shortcut: zod; meta-ads, singlestore: pydantic; k8sgpt, giantswarm-kubernetes: Go;
// 181 tools), labelled blind, its unlabelled findings then classified: 0.83 (88/106), 0.66 (83/125), high 0.76 (35/46)
// at c0ee59e. Read since: 0.91 (102/112), 0.78 (97/125), high 0.92 (35/38), not blind.
const FIFTEENTH_DRAW = ['supabase', 'shortcut', 'meta-ads', 'singlestore', 'k8sgpt', 'giantswarm-kubernetes'];
const FIFTEENTH_DRAW_FLOOR = { precision: 0.82, recall: 0.66, high: 0.76 };
// The sixteenth draw (trello, argocd: zod; nextcloud, gti: pydantic; container-use, gh-aw: Go; 171 tools), labelled
// blind, its unlabelled findings then classified: 0.81 (97/120), 0.68 (84/124), high 0.84 (37/44) at e687d97. Read
// since: 0.87 (106/122), 0.75 (93/124), high 1.00 (37/37), not blind.
const SIXTEENTH_DRAW = ['trello', 'argocd', 'nextcloud', 'gti', 'container-use', 'gh-aw'];
const SIXTEENTH_DRAW_FLOOR = { precision: 0.81, recall: 0.68, high: 0.84 };
// The seventeenth draw (salesforce, hevy: zod; unity, serena: pydantic; git-mcp-go, obs-mcp: Go; 163 tools), labelled
// blind, its unlabelled findings then classified: 0.68 (75/111), 0.63 (66/105), high 0.94 (30/32) at 9f7bdc3. Read
// since: 0.81 (85/105), 0.73 (77/105), high 0.94 (31/33), not blind.
const SEVENTEENTH_DRAW = ['salesforce', 'hevy', 'unity', 'serena', 'git-mcp-go', 'obs-mcp'];
const SEVENTEENTH_DRAW_FLOOR = { precision: 0.67, recall: 0.62, high: 0.93 };
// The eighteenth draw (checkpoint-management, qase: zod; yandex-tracker, ha-mcp: pydantic; moling, ovn-kubernetes: Go;
// 206 tools), labelled blind, its unlabelled findings then classified: 0.64 (78/122), 0.51 (59/116), high 0.87
// (27/31) at ca04956. Read since: 0.84 (109/129), 0.66 (76/116), high 1.00 (46/46), not blind.
const EIGHTEENTH_DRAW = ['checkpoint-management', 'qase', 'yandex-tracker', 'ha-mcp', 'moling', 'ovn-kubernetes'];
const EIGHTEENTH_DRAW_FLOOR = { precision: 0.63, recall: 0.5, high: 0.87 };
// The twenty-first draw (mapbox-devkit, bnbchain: zod; lean-lsp, teradata: pydantic; kiali: mcp-go; 154 tools), labelled
// blind, its unlabelled findings then classified: 0.98 (87/89), 0.55 (42/77), high 1.00 (14/14) at ed6eb4d.
const TWENTY_FIRST_DRAW = ['mapbox-devkit', 'bnbchain', 'lean-lsp', 'teradata', 'kiali'];
const TWENTY_FIRST_DRAW_FLOOR = { precision: 0.97, recall: 0.54, high: 1 };
// The twenty-second draw (gcloud-storage, teams-mcp: zod; zabbix, docling: pydantic; istio: mcp-go; jmrplens-gitlab: Go
// SDK; 175 tools), labelled blind, its unlabelled findings then classified: 0.78 (102/130), 0.75 (91/122), high 0.26
// (8/31) at 632f5f7 (22 of the 23 wrong `high` one idiom: "If true, returns only the count ... as an integer" read as
// the type of a boolean).
const TWENTY_SECOND_DRAW = ['gcloud-storage', 'teams-mcp', 'zabbix', 'docling', 'istio', 'jmrplens-gitlab'];
const TWENTY_SECOND_DRAW_FLOOR = { precision: 0.78, recall: 0.74, high: 0.25 };
// The twenty-fourth draw (sonarqube, pubmed: zod; netbox, aliyun-observability, langsmith, kubectl-mcp: pydantic, no Go
// server to be had; 126 tools), labelled blind, its unlabelled findings then classified: 0.69 (48/70), 0.52 (26/50),
// high 0.93 (14/15) at b3a4aac.
const TWENTY_FOURTH_DRAW = ['sonarqube', 'pubmed', 'netbox', 'aliyun-observability', 'langsmith', 'kubectl-mcp'];
const TWENTY_FOURTH_DRAW_FLOOR = { precision: 0.68, recall: 0.52, high: 0.93 };
// The twenty-fifth draw (gongrzhe-gmail, google-docs: zod; mcp-email-server, opencti, vikunja: pydantic, no Go server to
// be had; 221 tools), labelled blind, its unlabelled findings then classified: 0.81 (124/154), 0.60 (48/80), high 0.45
// (17/38) at cb748bb (18 of the 21 wrong `high` one phrase: "Entity id (STIX id or internal UUID)" read as a UUID).
const TWENTY_FIFTH_DRAW = ['gongrzhe-gmail', 'google-docs', 'mcp-email-server', 'opencti', 'vikunja'];
const TWENTY_FIFTH_DRAW_FLOOR = { precision: 0.8, recall: 0.6, high: 0.44 };
// The twenty-sixth draw (lunchmoney, metabase-cognition: zod; rcsb, fabric-rti, keycloak: pydantic, no Go server to be
// had; 186 tools), labelled blind, its unlabelled findings then classified: 0.84 (112/134), 0.61 (46/76), high 0.83
// (35/42) at 76f0bd0 (its 7 wrong `high`: "(1-500)" on a list of ids read as bounds of each id, twice; decimal places
// of a numeric string as `multipleOf`, twice; "not the internal UUID" as a UUID; a server setting's default; "One-letter
// sequence" as a width). Read since: 0.97 (126/130), 0.79 (60/76), high 1.00 (39/39), not blind.
const TWENTY_SIXTH_DRAW = ['lunchmoney', 'metabase-cognition', 'rcsb', 'fabric-rti', 'keycloak'];
const TWENTY_SIXTH_DRAW_FLOOR = { precision: 0.83, recall: 0.6, high: 0.83 };
// The twenty-seventh draw (webflow, 1password, ccxt, brave-search: zod; activecampaign, sumo-logic: pydantic, no Go
// server to be had; 170 tools), labelled blind, its unlabelled findings then classified: 0.91 (85/93), 0.60 (48/80),
// high 1.00 (9/9) at d8d8688. Read since: 0.96 (96/100), 0.74 (59/80), high 1.00 (15/15), not blind.
const TWENTY_SEVENTH_DRAW = ['webflow', '1password', 'ccxt', 'brave-search', 'activecampaign', 'sumo-logic'];
const TWENTY_SEVENTH_DRAW_FLOOR = { precision: 0.91, recall: 0.6, high: 1 };
// The twenty-eighth draw (calc-mcp, drawio, shinzo-gmail, shopify-geli: zod; allure-testops, wikipedia: pydantic; 171
// tools), labelled blind, its unlabelled findings then classified: 0.94 (89/95), 0.79 (46/58), high 1.00 (8/8) at
// d0166f4. Read since: 0.99 (97/98), 0.86 (50/58), high 1.00 (8/8), not blind.
const TWENTY_EIGHTH_DRAW = ['calc-mcp', 'drawio', 'shinzo-gmail', 'shopify-geli', 'allure-testops', 'wikipedia'];
const TWENTY_EIGHTH_DRAW_FLOOR = { precision: 0.94, recall: 0.79, high: 1 };
// The twenty-ninth draw (cursor-talk-to-figma, mcp-ssh-manager, openzeppelin, unifi-protect: zod; mikrotik, servicenow:
// pydantic; 202 tools), labelled blind, its unlabelled findings then classified: 0.83 (101/121), 0.65 (85/131), high
// 0.67 (2/3) at ae8affa (79 of its must-finds are openzeppelin's, most one default repeated on each tool: without it
// 0.85 (44/52), 0.65 (34/52)). Read since: 0.86 (115/134), 0.75 (98/131), high 1.00 (2/2), not blind.
const TWENTY_NINTH_DRAW = ['cursor-talk-to-figma', 'mcp-ssh-manager', 'openzeppelin', 'unifi-protect', 'mikrotik', 'servicenow'];
const TWENTY_NINTH_DRAW_FLOOR = { precision: 0.83, recall: 0.65, high: 0.66 };
// The thirtieth draw (cloudinary, gsc, strava, omnifocus: zod; hologres, packetfabric: pydantic; 128 tools), labelled
// blind, its unlabelled findings then classified: 0.85 (99/117), 0.61 (74/122), high 0.92 (23/25) at 3bceb81 (72 of its
// must-finds are cloudinary's: without it 0.78 (47/60), 0.66 (33/50)). Read since: 0.95 (98/103), 0.66 (81/122), high
// 1.00 (22/22), not blind.
const THIRTIETH_DRAW = ['cloudinary', 'gsc', 'strava', 'omnifocus', 'hologres', 'packetfabric'];
const THIRTIETH_DRAW_FLOOR = { precision: 0.84, recall: 0.6, high: 0.92 };
// The thirty-first draw (dynatrace, tantiope-datadog, fr24, emailmcp: zod; astro-airflow, joplin: pydantic; 144 tools),
// labelled blind, its unlabelled findings then classified: 0.48 (88/185), 0.58 (62/106), high 0.91 (20/22) at 53700ef
// (fr24 repeats "comma-separated values, max 15" on up to nine parameters of nine tools, read as a maxLength of 15
// characters: 63 of its 97 wrong findings; without fr24 0.72 (49/68), 0.59 (38/64)). Read since: 0.84 (122/145), 0.79
// (84/106), high 1.00 (21/21), not blind.
const THIRTY_FIRST_DRAW = ['dynatrace', 'tantiope-datadog', 'fr24', 'emailmcp', 'astro-airflow', 'joplin'];
const THIRTY_FIRST_DRAW_FLOOR = { precision: 0.47, recall: 0.58, high: 0.9 };
// The thirty-second draw (microsoft-azure-devops, railway-community, search-console, obsidian: zod; mcp-pypi, zendesk:
// pydantic; 157 tools), labelled blind, its unlabelled findings then classified: 0.92 (68/74), 0.54 (62/115), high 1.00
// (16/16) at abc4deb. Read since: 1.00 (110/110), 0.91 (105/115), high 1.00 (16/16), not blind.
const THIRTY_SECOND_DRAW = ['microsoft-azure-devops', 'railway-community', 'search-console', 'obsidian', 'mcp-pypi', 'zendesk'];
const THIRTY_SECOND_DRAW_FLOOR = { precision: 0.91, recall: 0.53, high: 1 };
// Training (169 servers, 4,601 tools, every draw but the held-out ones): 0.93 (3242/3497), 0.86 (2361/2753), high 0.99
// (856/865) at the twenty-fifth session's end (with the thirty-first and thirty-second draws, read this session).
const TRAINING_FLOOR = { precision: 0.92, recall: 0.85, high: 0.98 };

// A read draw's blind figures stay a floor now that it is in training: the rules may not lose on it.
describe.each([
  { draw: 'fifth', servers: FIFTH_DRAW, floor: FIFTH_DRAW_FLOOR },
  { draw: 'sixth', servers: SIXTH_DRAW, floor: SIXTH_DRAW_FLOOR },
  { draw: 'seventh', servers: SEVENTH_DRAW, floor: SEVENTH_DRAW_FLOOR },
  { draw: 'eighth', servers: EIGHTH_DRAW, floor: EIGHTH_DRAW_FLOOR },
  { draw: 'ninth', servers: NINTH_DRAW, floor: NINTH_DRAW_FLOOR },
  { draw: 'tenth', servers: TENTH_DRAW, floor: TENTH_DRAW_FLOOR },
  { draw: 'eleventh', servers: ELEVENTH_DRAW, floor: ELEVENTH_DRAW_FLOOR },
  { draw: 'twelfth', servers: TWELFTH_DRAW, floor: TWELFTH_DRAW_FLOOR },
  { draw: 'fourteenth', servers: FOURTEENTH_DRAW, floor: FOURTEENTH_DRAW_FLOOR },
  { draw: 'fifteenth', servers: FIFTEENTH_DRAW, floor: FIFTEENTH_DRAW_FLOOR },
  { draw: 'sixteenth', servers: SIXTEENTH_DRAW, floor: SIXTEENTH_DRAW_FLOOR },
  { draw: 'seventeenth', servers: SEVENTEENTH_DRAW, floor: SEVENTEENTH_DRAW_FLOOR },
  { draw: 'eighteenth', servers: EIGHTEENTH_DRAW, floor: EIGHTEENTH_DRAW_FLOOR },
  { draw: 'twenty-first', servers: TWENTY_FIRST_DRAW, floor: TWENTY_FIRST_DRAW_FLOOR },
  { draw: 'twenty-second', servers: TWENTY_SECOND_DRAW, floor: TWENTY_SECOND_DRAW_FLOOR },
  { draw: 'twenty-fourth', servers: TWENTY_FOURTH_DRAW, floor: TWENTY_FOURTH_DRAW_FLOOR },
  { draw: 'twenty-fifth', servers: TWENTY_FIFTH_DRAW, floor: TWENTY_FIFTH_DRAW_FLOOR },
  { draw: 'twenty-sixth', servers: TWENTY_SIXTH_DRAW, floor: TWENTY_SIXTH_DRAW_FLOOR },
  { draw: 'twenty-seventh', servers: TWENTY_SEVENTH_DRAW, floor: TWENTY_SEVENTH_DRAW_FLOOR },
  { draw: 'twenty-eighth', servers: TWENTY_EIGHTH_DRAW, floor: TWENTY_EIGHTH_DRAW_FLOOR },
  { draw: 'twenty-ninth', servers: TWENTY_NINTH_DRAW, floor: TWENTY_NINTH_DRAW_FLOOR },
  { draw: 'thirtieth', servers: THIRTIETH_DRAW, floor: THIRTIETH_DRAW_FLOOR },
  { draw: 'thirty-first', servers: THIRTY_FIRST_DRAW, floor: THIRTY_FIRST_DRAW_FLOOR },
  { draw: 'thirty-second', servers: THIRTY_SECOND_DRAW, floor: THIRTY_SECOND_DRAW_FLOOR },
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
