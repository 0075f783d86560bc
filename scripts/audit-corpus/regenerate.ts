/**
 * Regenerates test/fixtures/audit/unseen: the tools of public MCP servers the audit's rules were not written
 * against, each listed by starting the server as its registry publishes it (npm package, PyPI package, the Go
 * binary its npm package ships, or a Go command built from the Go module proxy) and asking it for tools/list with
 * the MCP SDK client. The schemas are exactly what the server's own library (zod through the TypeScript SDK,
 * pydantic through the Python SDK/FastMCP, Go structs through the Go SDK or mcp-go) emits. Recorded, not run in CI
 * (it installs packages and starts servers).
 *
 *   tsx scripts/audit-corpus/regenerate.ts WORKDIR [SERVER...]
 *
 * Servers start with placeholder credentials and, where they need an endpoint, a loopback address that nothing
 * listens on: tools/list needs neither. labels.json in each server's folder is written by hand and left alone.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESERVED } from './score.js';

type Ecosystem = 'zod' | 'pydantic' | 'go' | 'json';
interface Server {
  readonly repository: string;
  readonly path: string;
  /**
   * npm or PyPI package, or a Go command built from the Go module proxy (`module/cmd/name@version`); after the
   * package, separated by spaces, the pins its own ranges no longer resolve to a working set without.
   */
  readonly install: { readonly npm: string } | { readonly pypi: string } | { readonly go: string };
  /** The command, relative to the install folder. */
  readonly command: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Executable files written into the install folder before the server starts (stand-ins for tools it looks for). */
  readonly stubs?: Readonly<Record<string, string>>;
  readonly ecosystem: Ecosystem;
  readonly library: string;
  /** `training`: the rules may be tuned on it; `held-out`: figures are reported on it, never tuned on. */
  readonly split: 'training' | 'held-out';
}

const LOOPBACK = 'http://127.0.0.1:1';
const npmBin = (name: string): string[] => [`node_modules/.bin/${name}`];
const goBin = (pkg: string, bin: string): string[] => [`node_modules/${pkg}/bin/${bin}`];

// Reserved for checking the audit from outside (issue 23), never to be added here (RESERVED in score.ts, which the
// corpus test checks): github/github-mcp-server, getsentry/sentry-mcp, sooperset/mcp-atlassian, grafana/mcp-grafana,
// hashicorp/terraform-mcp-server, mongodb-js/mongodb-mcp-server.
export const SERVERS: Readonly<Record<string, Server>> = {
  playwright: {
    repository: 'microsoft/playwright-mcp',
    path: 'packages/playwright-mcp',
    install: { npm: '@playwright/mcp@0.0.83' },
    command: npmBin('playwright-mcp'),
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk (zod)',
    split: 'training',
  },
  'chrome-devtools': {
    repository: 'ChromeDevTools/chrome-devtools-mcp',
    path: 'src/tools',
    install: { npm: 'chrome-devtools-mcp@1.11.0' },
    command: npmBin('chrome-devtools-mcp'),
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk (zod)',
    split: 'training',
  },
  'cyanheads-git': {
    repository: 'cyanheads/git-mcp-server',
    path: 'src/mcp-server/tools/definitions',
    install: { npm: '@cyanheads/git-mcp-server@2.15.3' },
    command: npmBin('git-mcp-server'),
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk (zod)',
    split: 'training',
  },
  notion: {
    repository: 'makenotion/notion-mcp-server',
    path: 'scripts/notion-openapi.json',
    install: { npm: '@notionhq/notion-mcp-server@2.5.2' },
    command: npmBin('notion-mcp-server'),
    env: { NOTION_TOKEN: 'ntn_placeholder' },
    ecosystem: 'json',
    library: '@modelcontextprotocol/sdk (JSON Schema from its OpenAPI document)',
    split: 'training',
  },
  'desktop-commander': {
    repository: 'wonderwhy-er/DesktopCommanderMCP',
    path: 'src/tools/schemas.ts',
    install: { npm: '@wonderwhy-er/desktop-commander@0.2.52' },
    command: npmBin('desktop-commander'),
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk (zod 3 via zod-to-json-schema)',
    split: 'training',
  },
  'office-word': {
    repository: 'GongRzhe/Office-Word-MCP-Server',
    path: 'word_document_server/main.py',
    install: { pypi: 'office-word-mcp-server==1.1.11' },
    command: ['bin/word_mcp_server'],
    env: { MCP_TRANSPORT: 'stdio' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 (pydantic 2.14)',
    split: 'training',
  },
  prometheus: {
    repository: 'jeanlopezxyz/mcp-prometheus',
    path: 'pkg/tools',
    install: { npm: 'mcp-prometheus-linux-amd64@2.1.1' },
    command: goBin('mcp-prometheus-linux-amd64', 'mcp-prometheus-linux-amd64'),
    env: { PROMETHEUS_URL: LOOPBACK },
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.2.0 (google/jsonschema-go)',
    split: 'training',
  },
  'antv-chart': {
    repository: 'antvis/mcp-server-chart',
    path: 'src/charts',
    install: { npm: '@antv/mcp-server-chart@0.9.10' },
    command: npmBin('mcp-server-chart'),
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk (zod 4)',
    split: 'training',
  },
  kubernetes: {
    repository: 'containers/kubernetes-mcp-server',
    path: 'pkg/toolsets',
    install: { npm: 'kubernetes-mcp-server-linux-amd64@0.0.67' },
    command: goBin('kubernetes-mcp-server-linux-amd64', 'kubernetes-mcp-server-linux-amd64'),
    // A kubeconfig naming a loopback cluster: the server reads it at start and lists tools without calling it.
    env: { KUBECONFIG: '{WORKDIR}/kubeconfig' },
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.8.0 (google/jsonschema-go)',
    split: 'training',
  },
  'aws-eks': {
    repository: 'awslabs/mcp',
    path: 'src/eks-mcp-server/awslabs/eks_mcp_server',
    install: { pypi: 'awslabs.eks-mcp-server==0.2.1' },
    command: ['bin/awslabs.eks-mcp-server', '--allow-write', '--allow-sensitive-data-access'],
    env: {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'placeholder',
      AWS_SECRET_ACCESS_KEY: 'placeholder',
      AWS_EC2_METADATA_DISABLED: 'true',
    },
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 FastMCP (pydantic 2.14)',
    split: 'training',
  },
  alertmanager: {
    repository: 'jeanlopezxyz/mcp-alertmanager',
    path: 'pkg/tools',
    install: { npm: 'mcp-alertmanager-linux-amd64@2.1.1' },
    command: goBin('mcp-alertmanager-linux-amd64', 'mcp-alertmanager-linux-amd64'),
    env: { ALERTMANAGER_URL: LOOPBACK },
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.2.0 (google/jsonschema-go)',
    split: 'training',
  },
  cron: {
    repository: 'jolks/mcp-cron',
    path: 'internal/server',
    install: { npm: 'mcp-cron-linux-amd64@0.9.1' },
    command: [...goBin('mcp-cron-linux-amd64', 'mcp-cron'), '--transport', 'stdio'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.4.1 (google/jsonschema-go)',
    split: 'training',
  },
  currents: {
    repository: 'currents-dev/currents-mcp',
    path: 'mcp-server/src/tools',
    install: { npm: '@currents/mcp@2.1.1' },
    command: npmBin('mcp'),
    env: { CURRENTS_API_KEY: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk (zod 3)',
    split: 'training',
  },
  tavily: {
    repository: 'tavily-ai/tavily-mcp',
    path: 'src/index.ts',
    install: { npm: 'tavily-mcp@0.2.22' },
    command: npmBin('tavily-mcp'),
    env: { TAVILY_API_KEY: 'placeholder' },
    ecosystem: 'json',
    library: '@modelcontextprotocol/sdk (hand-written JSON Schema)',
    split: 'training',
  },
  elasticsearch: {
    repository: 'elastic/mcp-server-elasticsearch',
    path: 'index.ts',
    install: { npm: '@elastic/mcp-server-elasticsearch@0.3.1' },
    command: npmBin('mcp-server-elasticsearch'),
    env: { ES_URL: LOOPBACK, ES_API_KEY: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.13 (zod 3)',
    split: 'training',
  },
  // Held out: read and labelled only after the rules were frozen.
  circleci: {
    repository: 'CircleCI-Public/mcp-server-circleci',
    path: 'src/tools',
    install: { npm: '@circleci/mcp-server-circleci@0.20.0' },
    command: npmBin('mcp-server-circleci'),
    env: { CIRCLECI_TOKEN: 'placeholder', CIRCLECI_BASE_URL: LOOPBACK },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk (zod 3)',
    split: 'training',
  },
  browserbase: {
    repository: 'browserbase/mcp-server-browserbase',
    path: 'src/tools',
    install: { npm: '@browserbasehq/mcp-server-browserbase@2.4.3' },
    command: npmBin('mcp-server-browserbase'),
    env: { BROWSERBASE_API_KEY: 'placeholder', BROWSERBASE_PROJECT_ID: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk (zod 3)',
    split: 'training',
  },
  context7: {
    repository: 'upstash/context7',
    path: 'packages/mcp/src/index.ts',
    install: { npm: '@upstash/context7-mcp@4.1.1' },
    command: npmBin('context7-mcp'),
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk (zod 4)',
    split: 'training',
  },
  'aws-pricing': {
    repository: 'awslabs/mcp',
    path: 'src/aws-pricing-mcp-server/awslabs/aws_pricing_mcp_server/server.py',
    install: { pypi: 'awslabs.aws-pricing-mcp-server==1.1.1' },
    command: ['bin/awslabs.aws-pricing-mcp-server'],
    env: {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'placeholder',
      AWS_SECRET_ACCESS_KEY: 'placeholder',
      AWS_EC2_METADATA_DISABLED: 'true',
    },
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 FastMCP (pydantic 2.14)',
    split: 'training',
  },
  arxiv: {
    repository: 'blazickjp/arxiv-mcp-server',
    path: 'src/arxiv_mcp_server/tools',
    install: { pypi: 'arxiv-mcp-server==0.8.2' },
    command: ['bin/arxiv-mcp-server', '--storage-path', '{WORKDIR}/home/arxiv'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 (pydantic 2.14)',
    split: 'training',
  },
  duckduckgo: {
    repository: 'nickclyde/duckduckgo-mcp-server',
    path: 'src/duckduckgo_mcp_server/server.py',
    install: { pypi: 'duckduckgo-mcp-server==0.7.0' },
    command: ['bin/duckduckgo-mcp-server'],
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 FastMCP (pydantic 2.14)',
    split: 'training',
  },
  clickhouse: {
    repository: 'ClickHouse/mcp-clickhouse',
    path: 'mcp_clickhouse/mcp_server.py',
    install: { pypi: 'mcp-clickhouse==0.7.0' },
    command: ['bin/mcp-clickhouse'],
    env: { CLICKHOUSE_HOST: '127.0.0.1', CLICKHOUSE_PORT: '1', CLICKHOUSE_USER: 'placeholder', CLICKHOUSE_PASSWORD: 'placeholder' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.0.11 (pydantic 2.14)',
    split: 'training',
  },
  'digitalocean-droplets': {
    repository: 'digitalocean-labs/mcp-digitalocean',
    path: 'pkg/registry/droplet',
    install: { npm: '@digitalocean/mcp@1.0.70' },
    // The Go binary the npm package ships, with one of its services (the whole server lists 353 tools).
    command: ['node_modules/@digitalocean/mcp/dist/mcp-digitalocean-linux-amd64', '--services', 'droplets'],
    env: { DIGITALOCEAN_API_TOKEN: 'placeholder' },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.55.1',
    split: 'training',
  },
  'mcp-time': {
    repository: 'TheoBrigitte/mcp-time',
    path: 'pkg/tools',
    install: { npm: 'mcp-time-linux-x64@0.4.0' },
    command: goBin('mcp-time-linux-x64', 'mcp-time'),
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.33.0',
    split: 'training',
  },
  // The third draw (the tenth session), labelled blind; moved to training once its misses were read.
  firecrawl: {
    repository: 'firecrawl/firecrawl-mcp-server',
    path: 'src/index.ts',
    install: { npm: 'firecrawl-mcp@3.26.0' },
    command: npmBin('firecrawl-mcp'),
    env: { FIRECRAWL_API_KEY: 'fc-placeholder', HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: 'fastmcp 4.3.2 (zod 4)',
    split: 'training',
  },
  excel: {
    repository: 'haris-musa/excel-mcp-server',
    path: 'src/excel_mcp/server',
    install: { pypi: 'excel-mcp-server==2.2.2' },
    command: ['bin/excel-mcp-server', 'stdio'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 MCPServer (pydantic 2.14)',
    split: 'training',
  },
  mapbox: {
    repository: 'mapbox/mcp-server',
    path: 'src/tools',
    install: { npm: '@mapbox/mcp-server@0.14.0' },
    command: npmBin('mcp-server'),
    // A token of the public-token shape: the server reads it at start and lists tools without calling the API.
    env: { MAPBOX_ACCESS_TOKEN: 'pk.eyJ1IjoicGxhY2Vob2xkZXIiLCJhIjoicGxhY2Vob2xkZXIifQ.placeholder', HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk (zod 4)',
    split: 'training',
  },
  'negokaz-excel': {
    repository: 'negokaz/excel-mcp-server',
    path: 'internal/tools',
    install: { npm: '@negokaz/excel-mcp-server@0.12.0' },
    // The Go binary the npm package ships (its launcher picks one per platform).
    command: ['node_modules/@negokaz/excel-mcp-server/dist/excel-mcp-server_linux_amd64_v1/excel-mcp-server'],
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.34.0',
    split: 'training',
  },
  // The fourth draw (the twelfth session): labelled blind, then read and ruled on, so training now. Its other two
  // servers (mongodb-mcp-server, mcp-grafana) are reserved for the outside check (see above SERVERS) and removed.
  datadog: {
    repository: 'winor30/mcp-server-datadog',
    path: 'src/tools',
    install: { npm: '@winor30/mcp-server-datadog@1.8.0' },
    command: npmBin('mcp-server-datadog'),
    env: { DATADOG_API_KEY: 'placeholder', DATADOG_APP_KEY: 'placeholder', DATADOG_SITE: '127.0.0.1:1' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.26.0 (zod 3.25)',
    split: 'training',
  },
  redis: {
    repository: 'redis/mcp-redis',
    path: 'src/tools',
    install: { pypi: 'redis-mcp-server==0.5.1' },
    command: ['bin/redis-mcp-server'],
    env: { REDIS_HOST: '127.0.0.1', REDIS_PORT: '1', HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14)',
    split: 'training',
  },
  // The fifth draw (zod): labelled blind, scored, then read and ruled on, so training now.
  gitlab: {
    repository: 'zereight/gitlab-mcp',
    path: 'schemas.ts',
    install: { npm: '@zereight/mcp-gitlab@2.1.64' },
    // Two of its toolsets (issues, milestones): its default set lists 118 tools.
    command: npmBin('mcp-gitlab'),
    env: {
      GITLAB_TOOLSETS: 'issues,milestones',
      GITLAB_PERSONAL_ACCESS_TOKEN: 'glpat-placeholder',
      GITLAB_API_URL: `${LOOPBACK}/api/v4`,
      GITLAB_DISABLE_VERSION_CHECK: 'true',
      HOME: '{WORKDIR}/home',
    },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.6)',
    split: 'training',
  },
  airtable: {
    repository: 'domdomegg/airtable-mcp-server',
    path: 'src/tools',
    install: { npm: 'airtable-mcp-server@1.14.0' },
    command: npmBin('airtable-mcp-server'),
    env: { AIRTABLE_API_KEY: 'patplaceholder', HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.6)',
    split: 'training',
  },
  // The fifth draw (pydantic and Go): as above.
  'aws-cloudwatch': {
    repository: 'awslabs/mcp',
    path: 'src/cloudwatch-mcp-server/awslabs/cloudwatch_mcp_server',
    install: { pypi: 'awslabs.cloudwatch-mcp-server==0.3.1' },
    command: ['bin/awslabs.cloudwatch-mcp-server'],
    env: {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'placeholder',
      AWS_SECRET_ACCESS_KEY: 'placeholder',
      AWS_EC2_METADATA_DISABLED: 'true',
      HOME: '{WORKDIR}/home',
    },
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 FastMCP (pydantic 2.14)',
    split: 'training',
  },
  'aws-dataprocessing': {
    repository: 'awslabs/mcp',
    path: 'src/aws-dataprocessing-mcp-server/awslabs/aws_dataprocessing_mcp_server/handlers',
    install: { pypi: 'awslabs.aws-dataprocessing-mcp-server==0.2.2' },
    command: ['bin/awslabs.aws-dataprocessing-mcp-server', '--allow-write', '--allow-sensitive-data-access'],
    env: {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'placeholder',
      AWS_SECRET_ACCESS_KEY: 'placeholder',
      AWS_EC2_METADATA_DISABLED: 'true',
      HOME: '{WORKDIR}/home',
    },
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 FastMCP (pydantic 2.14)',
    split: 'training',
  },
  slack: {
    repository: 'korotovsky/slack-mcp-server',
    path: 'pkg/server/server.go',
    install: { npm: 'slack-mcp-server-linux-amd64@1.3.0' },
    // The Go binary the npm package ships. Its "demo" token skips the Slack API at start; --no-cache skips the
    // user and channel caches; the four opt-in tools (messages, reactions, attachments, mark) are switched on.
    command: [...goBin('slack-mcp-server-linux-amd64', 'slack-mcp-server-linux-amd64'), '--transport', 'stdio', '--no-cache'],
    env: {
      SLACK_MCP_XOXP_TOKEN: 'demo',
      SLACK_MCP_ADD_MESSAGE_TOOL: 'true',
      SLACK_MCP_REACTION_TOOL: 'true',
      SLACK_MCP_ATTACHMENT_TOOL: 'true',
      SLACK_MCP_MARK_TOOL: 'true',
      HOME: '{WORKDIR}/home',
    },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.44.0',
    split: 'training',
  },
  // The sixth draw (pydantic and Go), labelled blind before the audit ran on it.
  'aws-iam': {
    repository: 'awslabs/mcp',
    path: 'src/iam-mcp-server/awslabs/iam_mcp_server',
    install: { pypi: 'awslabs.iam-mcp-server==1.1.2' },
    command: ['bin/awslabs.iam-mcp-server'],
    env: {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'placeholder',
      AWS_SECRET_ACCESS_KEY: 'placeholder',
      AWS_EC2_METADATA_DISABLED: 'true',
      HOME: '{WORKDIR}/home',
    },
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 FastMCP (pydantic 2.14)',
    split: 'training',
  },
  podman: {
    repository: 'manusa/podman-mcp-server',
    path: 'pkg/mcp',
    install: { npm: 'podman-mcp-server-linux-amd64@0.0.15' },
    // It looks for a podman CLI (or socket) at start and panics without one; a stand-in that prints a version is
    // enough for tools/list, which calls neither.
    command: [...goBin('podman-mcp-server-linux-amd64', 'podman-mcp-server-linux-amd64'), '--podman-impl', 'cli'],
    stubs: { 'stub-bin/podman': '#!/bin/sh\necho "podman version 5.0.0"\n' },
    env: { PATH: '{WORKDIR}/podman/stub-bin:/usr/bin:/bin', HOME: '{WORKDIR}/home' },
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.3.1 (google/jsonschema-go v0.4.2)',
    split: 'training',
  },
  // The sixth draw (zod), labelled blind before the audit ran on it.
  todoist: {
    repository: 'Doist/todoist-mcp',
    path: 'src/tools',
    install: { npm: '@doist/todoist-mcp@11.0.0' },
    command: npmBin('todoist-mcp'),
    env: { TODOIST_API_KEY: 'placeholder', HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.3.6)',
    split: 'training',
  },
  railway: {
    repository: 'railwayapp/railway-mcp-server',
    path: 'src/tools',
    install: { npm: '@railway/mcp-server@0.1.11' },
    command: npmBin('railway-mcp-server'),
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76)',
    split: 'training',
  },
  // The seventh draw (zod, pydantic, Go), labelled blind before the audit ran on it; read since.
  hubspot: {
    repository: 'HubSpot/mcp-server',
    path: 'dist/tools',
    install: { npm: '@hubspot/mcp-server@0.4.0' },
    command: npmBin('mcp-hubspot'),
    env: { HOME: '{WORKDIR}/home', PRIVATE_APP_ACCESS_TOKEN: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76)',
    split: 'training',
  },
  brightdata: {
    repository: 'brightdata/brightdata-mcp',
    path: 'server.js',
    install: { npm: '@brightdata/mcp@2.11.3' },
    // Its default tool set: PRO_MODE adds 69 per-site scrapers that share one description and would weigh the draw.
    command: npmBin('mcp'),
    env: { HOME: '{WORKDIR}/home', API_TOKEN: 'placeholder' },
    ecosystem: 'zod',
    library: 'fastmcp 3.35.0 on @modelcontextprotocol/sdk 1.21.2 (zod 3.25.76)',
    split: 'training',
  },
  pinecone: {
    repository: 'pinecone-io/pinecone-mcp',
    path: 'src/tools',
    install: { npm: '@pinecone-database/mcp@0.3.0' },
    command: npmBin('pinecone-mcp'),
    env: { HOME: '{WORKDIR}/home', PINECONE_API_KEY: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.6.7)',
    split: 'training',
  },
  'flux159-kubernetes': {
    repository: 'Flux159/mcp-server-kubernetes',
    path: 'src/tools',
    install: { npm: 'mcp-server-kubernetes@4.1.7' },
    command: npmBin('mcp-server-kubernetes'),
    env: { KUBECONFIG: '{WORKDIR}/kubeconfig', HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.26.0 (zod 3.25.76, zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  chroma: {
    repository: 'chroma-core/chroma-mcp',
    path: 'src/chroma_mcp/server.py',
    // chroma-mcp pins mcp 1.6.0, which imports a pydantic internal that pydantic 2.12 removed.
    install: { pypi: 'chroma-mcp==0.2.6 pydantic==2.11.10' },
    command: ['bin/chroma-mcp', '--client-type', 'ephemeral'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 1.6.0 FastMCP (pydantic 2.11.10)',
    split: 'training',
  },
  'tree-sitter': {
    repository: 'wrale/mcp-server-tree-sitter',
    path: 'src/mcp_server_tree_sitter/tools',
    // It imports FastMCP, which mcp 2 renamed.
    install: { pypi: 'mcp-server-tree-sitter==0.7.0 mcp<2' },
    command: ['bin/mcp-server-tree-sitter'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  'mark3labs-filesystem': {
    repository: 'mark3labs/mcp-filesystem-server',
    path: 'filesystemserver',
    install: { go: 'github.com/mark3labs/mcp-filesystem-server@v0.11.1' },
    command: ['bin/mcp-filesystem-server', '{WORKDIR}/home'],
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.32.0',
    split: 'training',
  },
  // The eighth draw (zod, pydantic, Go), labelled blind before the audit ran on it; read since.
  'google-calendar': {
    repository: 'nspady/google-calendar-mcp',
    path: 'src/tools/registry.ts',
    install: { npm: '@cocal/google-calendar-mcp@2.6.3' },
    command: npmBin('google-calendar-mcp'),
    // It refuses to start without an OAuth client file (a placeholder one); with no token it lists its tools all the same.
    stubs: {
      'gcp-oauth.keys.json':
        '{"installed": {"client_id": "placeholder.apps.googleusercontent.com", "client_secret": "placeholder", "redirect_uris": ["http://127.0.0.1:1"]}}\n',
    },
    env: { HOME: '{WORKDIR}/home', GOOGLE_OAUTH_CREDENTIALS: '{WORKDIR}/google-calendar/gcp-oauth.keys.json' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.6.7)',
    split: 'training',
  },
  'mobile-mcp': {
    repository: 'mobile-next/mobile-mcp',
    path: 'src/server.ts',
    install: { npm: '@mobilenext/mobile-mcp@1.0.4' },
    command: npmBin('mcp-server-mobile'),
    env: { HOME: '{WORKDIR}/home', MOBILEMCP_DISABLE_TELEMETRY: '1' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.30.0 (zod 4.6.7)',
    split: 'training',
  },
  elevenlabs: {
    repository: 'elevenlabs/elevenlabs-mcp',
    path: 'elevenlabs_mcp/server.py',
    install: { pypi: 'elevenlabs-mcp==0.12.2' },
    command: ['bin/elevenlabs-mcp'],
    env: { ELEVENLABS_API_KEY: 'placeholder', HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  jupyter: {
    repository: 'datalayer/jupyter-mcp-server',
    path: 'jupyter_mcp_server/server.py',
    install: { pypi: 'jupyter-mcp-server==2.2.4' },
    // START_NEW_CODE_SANDBOX=false: by default it starts a kernel on the Jupyter server at start and waits on it.
    command: ['bin/jupyter-mcp-server'],
    env: { CODE_SANDBOX_URL: LOOPBACK, START_NEW_CODE_SANDBOX: 'false', HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 MCPServer, the renamed FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  'k8s-helm': {
    repository: 'reza-gholizade/k8s-mcp-server',
    path: 'tools',
    install: { go: 'github.com/reza-gholizade/k8s-mcp-server@v1.0.25' },
    command: ['bin/k8s-mcp-server', '--mode', 'stdio'],
    // A kubeconfig naming a loopback cluster: the server builds its clients from it and lists tools without calling it.
    env: { KUBECONFIG: '{WORKDIR}/kubeconfig', HOME: '{WORKDIR}/home' },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.54.0',
    split: 'training',
  },
  'flux-operator': {
    repository: 'controlplaneio-fluxcd/flux-operator',
    path: 'cmd/mcp/toolbox',
    install: { go: 'github.com/controlplaneio-fluxcd/flux-operator/cmd/mcp@v0.58.1' },
    command: ['bin/mcp', 'serve'],
    env: { KUBECONFIG: '{WORKDIR}/kubeconfig', HOME: '{WORKDIR}/home' },
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.6.1 (google/jsonschema-go)',
    split: 'training',
  },
  // The ninth draw (zod, pydantic, Go), labelled blind before the audit ran on it; read since.
  lara: {
    repository: 'translated/lara-mcp',
    path: 'src/mcp/tools',
    install: { npm: '@translated/lara-mcp@1.0.6' },
    command: npmBin('lara-mcp'),
    env: { HOME: '{WORKDIR}/home', LARA_ACCESS_KEY_ID: 'placeholder', LARA_ACCESS_KEY_SECRET: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76, zod/v4 toJSONSchema)',
    split: 'training',
  },
  browserstack: {
    repository: 'browserstack/mcp-server',
    path: 'src/tools',
    install: { npm: '@browserstack/mcp-server@1.4.2' },
    command: npmBin('browserstack-mcp-server'),
    env: { HOME: '{WORKDIR}/home', BROWSERSTACK_USERNAME: 'placeholder', BROWSERSTACK_ACCESS_KEY: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.6.7)',
    split: 'training',
  },
  zotero: {
    repository: '54yyyu/zotero-mcp',
    path: 'src/zotero_mcp/tools',
    install: { pypi: 'zotero-mcp-server==0.15.1' },
    // Its default profile of toolsets (ZOTERO_MCP_TOOLSETS unset); local mode needs no API key to list its tools.
    command: ['bin/zotero-mcp-server'],
    env: { ZOTERO_LOCAL: 'true', HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 on mcp 2.3.0 (pydantic 2.14.4)',
    split: 'training',
  },
  'google-workspace': {
    repository: 'taylorwilsdon/google_workspace_mcp',
    // The tools are in its g*/ folders (gmail/gmail_tools.py, ...); the core tier is named in core/tool_tiers.yaml.
    path: 'core/tool_tiers.yaml',
    install: { pypi: 'workspace-mcp==2.2.1' },
    // Its core tier (43 tools): the default registers all 119 of twelve services.
    command: ['bin/workspace-mcp', '--transport', 'stdio', '--tool-tier', 'core'],
    env: { GOOGLE_OAUTH_CLIENT_ID: 'placeholder', GOOGLE_OAUTH_CLIENT_SECRET: 'placeholder', HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 on mcp 2.3.0 (pydantic 2.14.4)',
    split: 'training',
  },
  gopls: {
    repository: 'golang/tools',
    path: 'gopls/internal/mcp',
    install: { go: 'golang.org/x/tools/gopls@v0.23.0' },
    // `gopls mcp`: a headless gopls session on the working directory (the install folder, a Go module) served over stdio.
    command: ['bin/gopls', 'mcp'],
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.6.0 (google/jsonschema-go v0.4.3)',
    split: 'training',
  },
  slackdump: {
    repository: 'rusq/slackdump',
    path: 'internal/mcp/tools.go',
    install: { go: 'github.com/rusq/slackdump/v4/cmd/slackdump@v4.4.1' },
    // `slackdump mcp` with no archive: it serves its tools and waits for load_source; no Slack credentials involved.
    command: ['bin/slackdump', 'mcp'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.44.0',
    split: 'training',
  },
  // The tenth draw (zod, pydantic, Go), labelled blind before the audit ran on it; read since.
  'azure-devops': {
    repository: 'Tiberriver256/mcp-server-azure-devops',
    path: 'src/features',
    install: { npm: '@tiberriver256/mcp-server-azure-devops@0.1.48' },
    command: npmBin('mcp-server-azure-devops'),
    // A PAT placeholder and a loopback organization URL: it lists its tools without calling Azure DevOps.
    env: {
      HOME: '{WORKDIR}/home',
      AZURE_DEVOPS_ORG_URL: LOOPBACK,
      AZURE_DEVOPS_AUTH_METHOD: 'pat',
      AZURE_DEVOPS_PAT: 'placeholder',
    },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.6.7, z.toJSONSchema draft-07)',
    split: 'training',
  },
  paperless: {
    repository: 'baruchiro/paperless-mcp',
    path: 'src/tools',
    install: { npm: '@baruchiro/paperless-mcp@2.2.1' },
    command: npmBin('paperless-mcp'),
    env: { HOME: '{WORKDIR}/home', PAPERLESS_URL: LOOPBACK, PAPERLESS_API_KEY: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.4.3)',
    split: 'training',
  },
  odoo: {
    repository: 'ivnvxd/mcp-server-odoo',
    path: 'mcp_server_odoo/tools.py',
    install: { pypi: 'mcp-server-odoo==0.9.0' },
    // Its default tool set (call_model_method needs two opt-in flags). An Odoo that does not answer is logged and
    // left to the first tool call; tools/list needs none.
    command: ['bin/mcp-server-odoo'],
    env: { ODOO_URL: LOOPBACK, ODOO_API_KEY: 'placeholder', ODOO_DB: 'placeholder', HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 MCPServer, the renamed FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  jenkins: {
    repository: 'lanbaoshen/mcp-jenkins',
    path: 'src/mcp_jenkins/server',
    install: { pypi: 'mcp-jenkins==3.6.0' },
    command: ['bin/mcp-jenkins'],
    env: { JENKINS_URL: LOOPBACK, JENKINS_USERNAME: 'placeholder', JENKINS_PASSWORD: 'placeholder', HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 on mcp 2.3.0 (pydantic 2.14.4)',
    split: 'training',
  },
  'mcp-devtools': {
    repository: 'sammcj/mcp-devtools',
    path: 'internal/tools',
    install: { go: 'github.com/sammcj/mcp-devtools@v0.59.95' },
    command: ['bin/mcp-devtools'],
    // Its default tools and the additional ones that need no other program or credential (ENABLE_ADDITIONAL_TOOLS).
    env: {
      HOME: '{WORKDIR}/home',
      ENABLE_ADDITIONAL_TOOLS:
        'github,code_skim,memory,pdf,excel,terraform_documentation,filesystem,shadcn,find_long_files,murican_to_english',
    },
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.7.0 (google/jsonschema-go v0.4.3)',
    split: 'training',
  },
  'aks-mcp': {
    repository: 'Azure/aks-mcp',
    path: 'internal/components',
    install: { go: 'github.com/Azure/aks-mcp/cmd/aks-mcp@v0.0.19' },
    // Its default (readonly, all components): it checks that az, kubectl, helm, cilium and hubble are on PATH at start.
    stubs: Object.fromEntries(
      ['az', 'kubectl', 'helm', 'cilium', 'hubble'].map((cli) => [`stub-bin/${cli}`, `#!/bin/sh\necho "${cli} 0.0.0"\n`]),
    ),
    command: ['bin/aks-mcp', '--transport', 'stdio'],
    env: { PATH: '{WORKDIR}/aks-mcp/stub-bin:/usr/bin:/bin', HOME: '{WORKDIR}/home', AKS_MCP_COLLECT_TELEMETRY: 'false' },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.54.1',
    split: 'training',
  },
  // The eleventh draw (zod, pydantic, Go), labelled blind before the audit ran on it; read since.
  coolify: {
    repository: 'StuMason/coolify-mcp',
    path: 'src/lib/mcp-server.ts',
    install: { npm: '@masonator/coolify-mcp@3.5.0' },
    command: npmBin('coolify-mcp'),
    // A token placeholder and a loopback Coolify URL: it lists its tools without calling Coolify.
    env: { HOME: '{WORKDIR}/home', COOLIFY_BASE_URL: LOOPBACK, COOLIFY_ACCESS_TOKEN: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/server 2.4.0, the TypeScript SDK v2 (zod 4.6.7)',
    split: 'training',
  },
  xero: {
    repository: 'XeroAPI/xero-mcp-server',
    path: 'src/tools',
    install: { npm: '@xeroapi/xero-mcp-server@0.0.17' },
    command: npmBin('xero-mcp-server'),
    // Placeholder custom-connection credentials: it lists its tools without asking Xero for a token.
    env: { HOME: '{WORKDIR}/home', XERO_CLIENT_ID: 'placeholder', XERO_CLIENT_SECRET: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76)',
    split: 'training',
  },
  proxmox: {
    repository: 'antonio-mello-ai/mcp-proxmox',
    path: 'src/mcp_proxmox/server.py',
    install: { pypi: 'mcp-proxmox==1.2.3' },
    // The Proxmox client is made at the first tool call; placeholder token and a loopback host are never used.
    command: ['bin/mcp-proxmox'],
    env: {
      PROXMOX_HOST: '127.0.0.1',
      PROXMOX_PORT: '1',
      PROXMOX_TOKEN_ID: 'placeholder@pam!placeholder',
      PROXMOX_TOKEN_SECRET: 'placeholder',
      HOME: '{WORKDIR}/home',
    },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  'vish288-gitlab': {
    repository: 'vish288/mcp-gitlab',
    path: 'src/mcp_gitlab/servers/gitlab.py',
    install: { pypi: 'mcp-gitlab==0.21.2' },
    // Read-only (GITLAB_READ_ONLY): its 34 read tools; all 92 with the write tools would weigh the draw.
    command: ['bin/mcp-gitlab', '--transport', 'stdio', '--read-only'],
    env: { GITLAB_URL: LOOPBACK, GITLAB_TOKEN: 'glpat-placeholder', HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 on mcp 2.3.0 (pydantic 2.14.4)',
    split: 'training',
  },
  portainer: {
    repository: 'portainer/portainer-mcp',
    path: 'internal/tooldef/tools.yaml',
    install: { go: 'github.com/portainer/portainer-mcp/cmd/portainer-mcp@v0.7.0' },
    // Its default tools (the embedded tools.yaml, written beside it at start; not read-only); no version check, so a
    // loopback Portainer nothing listens on is never asked.
    command: ['bin/portainer-mcp', '-server', '127.0.0.1:1', '-token', 'placeholder', '-disable-version-check'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.32.0',
    split: 'training',
  },
  razorpay: {
    repository: 'razorpay/razorpay-mcp-server',
    path: 'pkg/razorpay',
    install: { go: 'github.com/razorpay/razorpay-mcp-server/cmd/razorpay-mcp-server@v1.2.1' },
    // All its toolsets (the default), not read-only; placeholder keys: the client calls Razorpay only on a tool call.
    command: ['bin/razorpay-mcp-server', 'stdio'],
    env: { RAZORPAY_KEY_ID: 'rzp_test_placeholder', RAZORPAY_KEY_SECRET: 'placeholder', HOME: '{WORKDIR}/home' },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.32.0',
    split: 'training',
  },
  // The twelfth draw (zod, pydantic, Go), labelled blind before the audit ran on it; read since.
  karakeep: {
    repository: 'karakeep-app/karakeep',
    path: 'apps/mcp/src',
    install: { npm: '@karakeep/mcp@0.33.1' },
    command: npmBin('karakeep-mcp'),
    // A placeholder key and a loopback Karakeep address: it lists its tools without calling Karakeep.
    env: { HOME: '{WORKDIR}/home', KARAKEEP_API_ADDR: LOOPBACK, KARAKEEP_API_KEY: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/server 2.4.0, the TypeScript SDK v2 (zod 4.6.7)',
    split: 'training',
  },
  iterable: {
    repository: 'Iterable/mcp-server',
    path: 'src/tools',
    install: { npm: '@iterable/mcp@1.9.0' },
    command: npmBin('iterable-mcp'),
    // Its default tools (no user PII, writes or sends: 31 of them); a placeholder key, kept in a key store under HOME.
    env: { HOME: '{WORKDIR}/home', ITERABLE_API_KEY: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.18.1 (zod 4.3.6 via @alcyone-labs/zod-to-json-schema 4.0.10)',
    split: 'training',
  },
  biomcp: {
    repository: 'genomoncology/biomcp',
    path: 'src/biomcp',
    install: { pypi: 'biomcp-python==0.7.3' },
    // Its stdio server (all 36 tools); offline mode, and no API keys: keys are per call, none is asked at start.
    command: ['bin/biomcp', 'run', '--mode', 'stdio'],
    env: { BIOMCP_OFFLINE: 'true', HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  outline: {
    repository: 'Vortiago/mcp-outline',
    path: 'src/mcp_outline/features/documents',
    install: { pypi: 'mcp-outline==1.10.1' },
    // All its tools (not read-only); a placeholder key and a loopback Outline URL, asked only on a tool call.
    command: ['bin/mcp-outline'],
    env: { OUTLINE_API_KEY: 'placeholder', OUTLINE_API_URL: `${LOOPBACK}/api`, HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  tiger: {
    repository: 'timescale/tiger-cli',
    path: 'internal/tiger/mcp',
    install: { go: 'github.com/timescale/tiger-cli/cmd/tiger@v0.21.2' },
    // Its own tools (not read-only); the proxied docs tools come from a remote MCP server (TIGER_DOCS_MCP=false), and
    // no credentials are read until a tool is called.
    command: ['bin/tiger', 'mcp', 'start', 'stdio'],
    env: {
      HOME: '{WORKDIR}/home',
      TIGER_CONFIG_DIR: '{WORKDIR}/home/tiger',
      TIGER_DOCS_MCP: 'false',
      TIGER_ANALYTICS: 'false',
      TIGER_VERSION_CHECK: 'false',
    },
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.6.1 (google/jsonschema-go v0.4.3)',
    split: 'training',
  },
  'aio-mcp': {
    repository: 'athapong/aio-mcp',
    path: 'tools',
    install: { go: 'github.com/athapong/aio-mcp@v1.0.1' },
    command: ['bin/aio-mcp'],
    // All its tool groups but Jira and Confluence (the ground of the reserved mcp-atlassian) and sequential thinking
    // (a copy of modelcontextprotocol/servers' sequentialthinking, in the real corpus): 49 of its 63 tools. Clients
    // are made at the first call, so no credential is needed (the .env it looks for is absent: a warning only).
    env: {
      HOME: '{WORKDIR}/home',
      ENABLE_TOOLS: 'gemini,deepseek,fetch,brave_search,youtube,gitlab,script,rag,gmail,calendar,youtube_channel,gchat,google_maps',
    },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.21.1',
    split: 'training',
  },
  // The thirteenth draw (zod, pydantic, Go), labelled blind before the audit ran on it.
  'henkey-postgres': {
    repository: 'HenkDz/postgresql-mcp-server',
    path: 'src/tools',
    install: { npm: '@henkey/postgres-mcp-server@1.0.7' },
    command: npmBin('postgres-mcp'),
    // No connection string: it lists its 18 tools and connects only on a tool call (which takes the string then).
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'held-out',
  },
  'smartbear-bugsnag': {
    repository: 'SmartBear/smartbear-mcp',
    path: 'src/bugsnag',
    install: { npm: '@smartbear/mcp@0.41.0' },
    command: npmBin('mcp'),
    // Its BugSnag tools only (a placeholder token): with every product configured it lists 308 tools, which would
    // weigh the draw; the token is used only on a tool call.
    env: { HOME: '{WORKDIR}/home', BUGSNAG_AUTH_TOKEN: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/server 2.4.0, the TypeScript SDK v2 (zod 4.6.7)',
    split: 'held-out',
  },
  couchbase: {
    repository: 'couchbase/mcp-server-couchbase',
    path: 'src/cb_mcp/tools',
    install: { pypi: 'couchbase-mcp-server==1.0.1.post1' },
    command: ['bin/couchbase-mcp-server'],
    // Its default read-only mode (the KV write tools are not loaded); placeholder credentials and a loopback cluster,
    // connected to only on a tool call; its Reo.dev telemetry opted out.
    env: {
      CB_CONNECTION_STRING: 'couchbase://127.0.0.1:1',
      CB_USERNAME: 'placeholder',
      CB_PASSWORD: 'placeholder',
      PACKAGE_TRACKER_ANALYTICS: 'false',
      DO_NOT_TRACK: '1',
      HOME: '{WORKDIR}/home',
    },
    ecosystem: 'pydantic',
    library: 'fastmcp 3.4.11 (mcp 1.30.0, pydantic 2.14.4)',
    split: 'held-out',
  },
  mlflow: {
    repository: 'kkruglik/mlflow-mcp',
    path: 'src/mlflow_mcp/server.py',
    install: { pypi: 'mlflow-mcp==0.4.1' },
    command: ['bin/mlflow-mcp'],
    // A loopback tracking server, asked only on a tool call.
    env: { MLFLOW_TRACKING_URI: LOOPBACK, HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'held-out',
  },
  flyctl: {
    repository: 'superfly/flyctl',
    path: 'internal/command/mcp/server',
    install: { go: 'github.com/superfly/flyctl@v0.4.83' },
    // `flyctl mcp server` over stdio: all its 60 tools (no toolset flag); a placeholder token and a loopback API URL,
    // used only when a tool runs a flyctl command.
    command: ['bin/flyctl', 'mcp', 'server'],
    env: { HOME: '{WORKDIR}/home', FLY_ACCESS_TOKEN: 'placeholder', FLY_API_BASE_URL: LOOPBACK, FLY_NO_UPDATE_CHECK: '1' },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.56.0',
    split: 'held-out',
  },
  // The fourteenth draw (zod, pydantic, Go), labelled blind before the audit ran on it; read since.
  // fourteenth draw, part A
  paddle: {
    repository: 'PaddleHQ/paddle-mcp-server',
    path: 'src/tools.ts',
    install: { npm: '@paddle/paddle-mcp@0.1.6' },
    // Its read-only tools (41): the default non-destructive set adds the create/preview tools, 63 in all, with schemas
    // several times as long, which would weigh the draw. A placeholder key; Paddle is asked only on a tool call.
    command: [...npmBin('paddle'), '--api-key=placeholder', '--environment=sandbox', '--tools=read-only'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  launchdarkly: {
    repository: 'launchdarkly/mcp-server',
    path: 'src/mcp-server/tools',
    install: { npm: '@launchdarkly/mcp-server@0.6.2' },
    // All its tools (both scopes); a placeholder key and a loopback server URL, used only on a tool call.
    command: [...npmBin('mcp'), 'start', '--api-key', 'placeholder', '--server-url', LOOPBACK],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.6.7 through zod/v3, zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  langfuse: {
    repository: 'avivsinai/langfuse-mcp',
    path: 'langfuse_mcp/__main__.py',
    install: { pypi: 'langfuse-mcp==0.14.0' },
    // All its tools (not read-only); placeholder keys and a loopback Langfuse host, asked only on a tool call.
    command: ['bin/langfuse-mcp'],
    env: {
      LANGFUSE_PUBLIC_KEY: 'pk-lf-placeholder',
      LANGFUSE_SECRET_KEY: 'sk-lf-placeholder',
      LANGFUSE_HOST: LOOPBACK,
      HOME: '{WORKDIR}/home',
    },
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 MCPServer, the renamed FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  // fourteenth draw, part B
  plane: {
    repository: 'makeplane/plane-mcp-server',
    path: 'plane_mcp/tools',
    install: { pypi: 'plane-mcp-server==0.3.5' },
    // `plane-mcp-server stdio` (one tool per resource, an action parameter picks the call); a placeholder key and
    // workspace and a loopback Plane URL, asked only on a tool call.
    command: ['bin/plane-mcp-server', 'stdio'],
    env: {
      HOME: '{WORKDIR}/home',
      PLANE_API_KEY: 'placeholder',
      PLANE_WORKSPACE_SLUG: 'placeholder',
      PLANE_BASE_URL: LOOPBACK,
    },
    ecosystem: 'pydantic',
    library: 'fastmcp 3.2.0 (mcp 1.28.1, pydantic 2.14.4)',
    split: 'training',
  },
  'gke-mcp': {
    repository: 'GoogleCloudPlatform/gke-mcp',
    path: 'pkg/tools',
    install: { go: 'github.com/GoogleCloudPlatform/gke-mcp@v0.15.0' },
    // Over stdio with its delete tools too (all its tools). It makes its Google clients at start, so it gets a
    // placeholder authorized-user credentials file (no token is fetched until a tool call), and its agent tools an
    // LLM client: Anthropic with a placeholder key, as the default Vertex AI one needs a project from gcloud (absent).
    stubs: {
      'adc.json': '{"type":"authorized_user","client_id":"placeholder","client_secret":"placeholder","refresh_token":"placeholder"}\n',
    },
    command: ['bin/gke-mcp', '--enable-delete-tools'],
    env: {
      HOME: '{WORKDIR}/home',
      KUBECONFIG: '{WORKDIR}/kubeconfig',
      GOOGLE_APPLICATION_CREDENTIALS: '{WORKDIR}/gke-mcp/adc.json',
      GKE_MCP_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: 'placeholder',
    },
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.6.1 (google/jsonschema-go v0.4.3)',
    split: 'training',
  },
  'vault-mcp': {
    repository: 'hashicorp/vault-mcp-server',
    path: 'pkg/tools',
    install: { go: 'github.com/hashicorp/vault-mcp-server/cmd/vault-mcp-server@v0.2.0' },
    // `vault-mcp-server stdio`: a placeholder token and a loopback Vault address, asked only on a tool call.
    command: ['bin/vault-mcp-server', 'stdio'],
    env: { HOME: '{WORKDIR}/home', VAULT_ADDR: LOOPBACK, VAULT_TOKEN: 'placeholder' },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.40.0',
    split: 'training',
  },
  // The fifteenth draw (zod, pydantic, Go), labelled blind before the audit ran on it; read since.
  // fifteenth draw, part A
  supabase: {
    repository: 'supabase/mcp',
    path: 'packages/mcp-server-supabase/src/tools',
    install: { npm: '@supabase/mcp-server-supabase@0.13.0' },
    // Every feature group but `docs` (its search_docs tool fetches a GraphQL schema from the content API while the
    // tools are listed); no --project-ref, so the account tools too. A placeholder token and a loopback API URL.
    command: [
      ...npmBin('mcp-server-supabase'),
      '--access-token',
      'placeholder',
      '--api-url',
      LOOPBACK,
      '--features',
      'account,database,debugging,development,functions,branching,storage',
    ],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@supabase/mcp-utils 0.8.0 on @modelcontextprotocol/server 2.4.0 (zod 4.6.7, z.toJSONSchema draft-7)',
    split: 'training',
  },
  shortcut: {
    repository: 'useshortcut/mcp-server-shortcut',
    path: 'src/tools',
    install: { npm: '@shortcut/mcp@0.25.0' },
    // All its tools (no read-only or tool filter); a placeholder token, used only on a tool call.
    command: npmBin('mcp-server-shortcut'),
    env: { HOME: '{WORKDIR}/home', SHORTCUT_API_TOKEN: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  'meta-ads': {
    repository: 'pipeboard-co/meta-ads-mcp',
    path: 'meta_ads_mcp/core',
    install: { pypi: 'meta-ads-mcp==1.0.128' },
    // Over stdio; a placeholder token, used only on a tool call.
    command: ['bin/meta-ads-mcp'],
    env: { HOME: '{WORKDIR}/home', META_ACCESS_TOKEN: 'placeholder' },
    ecosystem: 'pydantic',
    library: 'mcp 1.28.1 FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  // fifteenth draw, part B
  singlestore: {
    repository: 'singlestore-labs/mcp-server-singlestore',
    path: 'src/api/tools',
    install: { pypi: 'singlestore-mcp-server==0.4.19 mcp==1.30.0' },
    // mcp pinned below 2 (its own range takes mcp 2.x, where mcp.server.fastmcp is gone). `singlestore-mcp-server
    // start` over stdio with a placeholder API key (no browser login); SingleStore is asked only on a tool call.
    command: ['bin/singlestore-mcp-server', 'start'],
    env: { HOME: '{WORKDIR}/home', MCP_API_KEY: 'placeholder' },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  k8sgpt: {
    repository: 'k8sgpt-ai/k8sgpt',
    path: 'pkg/server/mcp.go',
    install: { go: 'github.com/k8sgpt-ai/k8sgpt@v0.4.36' },
    // `k8sgpt serve --mcp` over stdio (its gRPC and metrics servers beside it on unused loopback ports); an AI backend
    // from the environment (placeholder key, loopback base URL) and the loopback kubeconfig, asked only on a tool call.
    command: ['bin/k8sgpt', 'serve', '--mcp', '--port', '18080', '--metrics-port', '18081'],
    env: {
      HOME: '{WORKDIR}/home',
      KUBECONFIG: '{WORKDIR}/kubeconfig',
      K8SGPT_BACKEND: 'openai',
      K8SGPT_PASSWORD: 'placeholder',
      K8SGPT_MODEL: 'gpt-4o',
      K8SGPT_BASEURL: LOOPBACK,
    },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.36.0',
    split: 'training',
  },
  'giantswarm-kubernetes': {
    repository: 'giantswarm/mcp-kubernetes',
    path: 'internal/tools',
    install: { go: 'github.com/giantswarm/mcp-kubernetes@v0.11.7' },
    // `mcp-kubernetes serve` over stdio with its write tools too (--non-destructive=false: 19 tools, 9 without); the
    // loopback kubeconfig, asked only on a tool call.
    command: ['bin/mcp-kubernetes', 'serve', '--non-destructive=false'],
    env: { HOME: '{WORKDIR}/home', KUBECONFIG: '{WORKDIR}/kubeconfig' },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.55.0',
    split: 'training',
  },
  // The sixteenth draw (zod, pydantic, Go), labelled blind before the audit ran on it; read since.
  // sixteenth draw, part A
  trello: {
    repository: 'delorenj/mcp-server-trello',
    path: 'src/index.ts',
    install: { npm: '@delorenj/mcp-server-trello@1.8.1' },
    // All its tools; a placeholder key and token, used only on a tool call.
    command: npmBin('mcp-server-trello'),
    env: { HOME: '{WORKDIR}/home', TRELLO_API_KEY: 'placeholder', TRELLO_TOKEN: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk bundled in its build (zod v4 API, core 4.0.0, z.toJSONSchema draft-07)',
    split: 'training',
  },
  argocd: {
    repository: 'argoproj-labs/mcp-for-argocd',
    path: 'src/server/server.ts',
    install: { npm: 'argocd-mcp@0.9.0' },
    // `argocd-mcp stdio` with its write tools too (not read-only); a placeholder token and a loopback Argo CD URL,
    // asked only on a tool call.
    command: [...npmBin('argocd-mcp'), 'stdio'],
    env: { HOME: '{WORKDIR}/home', ARGOCD_BASE_URL: LOOPBACK, ARGOCD_API_TOKEN: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  nextcloud: {
    repository: 'cbcoutinho/nextcloud-mcp-server',
    path: 'nextcloud_mcp_server/server',
    install: { pypi: 'nextcloud-mcp-server==0.202.1' },
    // `nextcloud-mcp-server run --transport stdio` with four of its thirteen apps (calendar, contacts, notes,
    // tables: 39 of its 182 tools); BasicAuth placeholders and a loopback Nextcloud host, asked only on a tool call.
    command: [
      'bin/nextcloud-mcp-server',
      'run',
      '--transport',
      'stdio',
      ...['-e', 'calendar', '-e', 'contacts', '-e', 'notes', '-e', 'tables'],
    ],
    env: {
      HOME: '{WORKDIR}/home',
      NEXTCLOUD_HOST: LOOPBACK,
      NEXTCLOUD_USERNAME: 'placeholder',
      NEXTCLOUD_PASSWORD: 'placeholder',
    },
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 MCPServer, the renamed FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  // sixteenth draw, part B
  gti: {
    repository: 'google/mcp-security',
    path: 'server/gti/gti_mcp/tools',
    install: { pypi: 'gti-mcp==0.1.3' },
    // Google Threat Intelligence over stdio; a placeholder VirusTotal key, used only on a tool call.
    command: ['bin/gti_mcp'],
    env: { HOME: '{WORKDIR}/home', VT_APIKEY: 'placeholder' },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  'container-use': {
    repository: 'dagger/container-use',
    path: 'mcpserver/tools.go',
    install: { go: 'github.com/dagger/container-use/cmd/container-use@v0.4.2' },
    // `container-use stdio`: a Dagger session named by the environment (a loopback port nothing listens on), which
    // the client dials only when a tool runs, so tools/list needs no engine.
    command: ['bin/container-use', 'stdio'],
    env: { HOME: '{WORKDIR}/home', DAGGER_SESSION_PORT: '1', DAGGER_SESSION_TOKEN: 'placeholder' },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.29.0',
    split: 'training',
  },
  'gh-aw': {
    repository: 'github/gh-aw',
    path: 'pkg/cli',
    install: { go: 'github.com/github/gh-aw/cmd/gh-aw@v0.89.10' },
    // `gh-aw mcp-server` over stdio: its tools run the gh-aw CLI (and gh) only when called; no token is read at start.
    command: ['bin/gh-aw', 'mcp-server'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.7.0 (google/jsonschema-go v0.4.3)',
    split: 'training',
  },
  // The seventeenth draw (zod, pydantic, Go), labelled blind before the audit ran on it; read since.
  // seventeenth draw, part A
  salesforce: {
    repository: 'salesforcecli/mcp',
    path: 'packages',
    install: { npm: '@salesforce/mcp@0.30.15' },
    // Its GA toolsets other than the mobile, Aura and LWC guide ones (28 of the 74 of --toolsets all, the rest mostly
    // without parameters); the placeholder org alias of its docs and no telemetry: orgs are read only on a tool call.
    command: [
      ...npmBin('sf-mcp-server'),
      '--toolsets',
      'core,data,orgs,metadata,testing,users,devops,code-analysis,scale-products,enrichment,experts-validation',
      '--orgs',
      'DEFAULT_TARGET_ORG',
      '--no-telemetry',
    ],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  hevy: {
    repository: 'chrisdoc/hevy-mcp',
    path: 'src/tools',
    install: { npm: 'hevy-mcp@6.1.13' },
    // Over stdio; a placeholder API key, used only on a tool call, and its telemetry off.
    command: npmBin('hevy-mcp'),
    env: { HOME: '{WORKDIR}/home', HEVY_API_KEY: 'placeholder', HEVY_MCP_TELEMETRY: '0' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/server 2.4.0 (zod 4.6.7, z.toJSONSchema)',
    split: 'training',
  },
  unity: {
    repository: 'CoplayDev/unity-mcp',
    path: 'Server/src/services/tools',
    install: { pypi: 'mcpforunityserver==10.3.0' },
    // `mcp-for-unity` over stdio: it looks for a Unity editor only when a tool is called.
    command: ['bin/mcp-for-unity'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'fastmcp 3.4.11 (pydantic 2.14.4)',
    split: 'training',
  },
  // seventeenth draw, part B
  serena: {
    repository: 'oraios/serena',
    path: 'src/serena/tools',
    install: { pypi: 'serena-agent==2.1.0' },
    // Its default desktop-app context with one tool per operation (the default is the REPL interface's three), no
    // project and no dashboard: language servers start only when a project is activated.
    command: [
      'bin/serena',
      'start-mcp-server',
      '--agent-interface',
      'tools',
      '--enable-web-dashboard',
      'false',
      '--enable-gui-log-window',
      'false',
      '--open-web-dashboard',
      'false',
    ],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 2.2.0 FastMCP (pydantic 2.12.5)',
    split: 'training',
  },
  'git-mcp-go': {
    repository: 'geropl/git-mcp-go',
    path: 'pkg/server.go',
    install: { go: 'github.com/geropl/git-mcp-go@v1.3.1' },
    // `git-mcp-go serve` over stdio on one repository (the work folder; git runs only on a tool call), push enabled.
    command: ['bin/git-mcp-go', 'serve', '--write-access', '{WORKDIR}'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.8.5',
    split: 'training',
  },
  'obs-mcp': {
    repository: 'rhobs/obs-mcp',
    path: 'pkg',
    install: { go: 'github.com/rhobs/obs-mcp/cmd/obs-mcp@v0.6.0' },
    // Over stdio with all four toolsets, kubeconfig auth on the loopback kubeconfig and every backend URL given as a
    // loopback address, so nothing is discovered or called before a tool runs.
    command: [
      'bin/obs-mcp',
      '--toolsets',
      'observability/metrics,observability/traces,observability/logs,observability/otelcol',
      '--auth-mode',
      'kubeconfig',
    ],
    env: {
      HOME: '{WORKDIR}/home',
      KUBECONFIG: '{WORKDIR}/kubeconfig',
      PROMETHEUS_URL: LOOPBACK,
      ALERTMANAGER_URL: LOOPBACK,
      TEMPO_URL: LOOPBACK,
      LOKI_URL: LOOPBACK,
    },
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.6.1 (google/jsonschema-go)',
    split: 'training',
  },
  // The eighteenth draw (zod, pydantic, Go), labelled blind before the audit ran on it; read since.
  // eighteenth draw, part A
  'checkpoint-management': {
    repository: 'CheckPointSW/mcp-servers',
    path: 'packages/management/src/index.ts',
    install: { npm: '@chkp/quantum-management-mcp@1.4.10' },
    // Over stdio with a placeholder API key and a loopback management host: it logs in only when a tool is called.
    command: npmBin('quantum-management-mcp'),
    env: { HOME: '{WORKDIR}/home', API_KEY: 'placeholder', MANAGEMENT_HOST: '127.0.0.1', MANAGEMENT_PORT: '1' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  qase: {
    repository: 'qase-tms/qase-mcp-server',
    path: 'src/operations-v2',
    install: { npm: '@qase/mcp-server@2.7.0' },
    // Over stdio with its default tool set and a placeholder token, used only on a tool call.
    command: npmBin('qase-mcp-server'),
    env: { HOME: '{WORKDIR}/home', QASE_API_TOKEN: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/server 2.4.0 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  'yandex-tracker': {
    repository: 'aikts/yandex-tracker-mcp',
    path: 'mcp_tracker/mcp/tools',
    install: { pypi: 'yandex-tracker-mcp==0.10.0' },
    // Over stdio with a placeholder OAuth token and organization, and the API base URL on the loopback address.
    command: ['bin/yandex-tracker-mcp'],
    env: {
      HOME: '{WORKDIR}/home',
      TRACKER_TOKEN: 'placeholder',
      TRACKER_CLOUD_ORG_ID: 'placeholder',
      TRACKER_API_BASE_URL: LOOPBACK,
    },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  // eighteenth draw, part B
  'ha-mcp': {
    repository: 'homeassistant-ai/ha-mcp',
    path: 'src/ha_mcp/tools',
    install: { pypi: 'ha-mcp==3.5.1' },
    // Over stdio (its newer releases need a newer Python than 3.11) with a placeholder token and the Home Assistant
    // URL on the loopback address: it connects only when a tool is called.
    command: ['bin/ha-mcp'],
    env: { HOME: '{WORKDIR}/home', HOMEASSISTANT_URL: LOOPBACK, HOMEASSISTANT_TOKEN: 'placeholder' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 (pydantic 2.14.4)',
    split: 'training',
  },
  moling: {
    repository: 'gojue/moling',
    path: 'pkg/services',
    install: { go: 'github.com/gojue/moling@v0.5.0' },
    // Over stdio (no --listen_addr) with all three modules (browser, filesystem, command): Chrome starts only when a
    // browser tool is called.
    command: ['bin/moling'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.29.0',
    split: 'training',
  },
  'ovn-kubernetes': {
    repository: 'ovn-kubernetes/ovn-kubernetes-mcp',
    path: 'pkg',
    install: { go: 'github.com/ovn-kubernetes/ovn-kubernetes-mcp/cmd/ovnk-mcp-server@v0.1.0' },
    // Over stdio in dual mode (live-cluster and offline tools) on the loopback kubeconfig: the cluster is called only
    // when a tool runs. The must-gather tools are registered only when omc and ovsdb-tool are on PATH; stand-ins are
    // enough for tools/list, which runs neither.
    command: ['bin/ovnk-mcp-server', '--mode', 'dual', '--transport', 'stdio', '--kubeconfig', '{WORKDIR}/kubeconfig'],
    stubs: Object.fromEntries(['omc', 'ovsdb-tool'].map((cli) => [`stub-bin/${cli}`, `#!/bin/sh\necho "${cli} 0.0.0"\n`])),
    env: { PATH: '{WORKDIR}/ovn-kubernetes/stub-bin:/usr/bin:/bin', HOME: '{WORKDIR}/home' },
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.6.1 (google/jsonschema-go v0.4.3)',
    split: 'training',
  },
  // The nineteenth draw (zod, pydantic, Go), labelled blind before the audit ran on it.
  // nineteenth draw, part A
  'google-map': {
    repository: 'cablate/mcp-google-map',
    path: 'src/tools/maps',
    install: { npm: '@cablate/mcp-google-map@0.0.63' },
    // Over stdio (--stdio; HTTP is its default) with a placeholder API key, used only when a tool is called.
    command: [...npmBin('mcp-google-map'), '--stdio'],
    env: { HOME: '{WORKDIR}/home', GOOGLE_MAPS_API_KEY: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76)',
    split: 'held-out',
  },
  'server-filesystem': {
    repository: 'modelcontextprotocol/servers',
    path: 'src/filesystem/index.ts',
    install: { npm: '@modelcontextprotocol/server-filesystem@2026.8.31' },
    // Over stdio with one allowed directory in the work folder.
    command: [...npmBin('mcp-server-filesystem'), '{WORKDIR}/home'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.6.7)',
    split: 'held-out',
  },
  'alibaba-cloud-ops': {
    repository: 'aliyun/alibaba-cloud-ops-mcp-server',
    path: 'src/alibaba_cloud_ops_mcp_server/tools',
    install: { pypi: 'alibaba-cloud-ops-mcp-server==0.9.27' },
    // Over stdio with placeholder keys. Its default mode builds the ECS/VPC/RDS API tools from metadata it downloads at
    // start, so --visible-tools names its 34 hand-written tools (and --services ecs brings the generic API tools).
    command: [
      'bin/alibaba-cloud-ops-mcp-server',
      '--services',
      'ecs',
      '--visible-tools',
      [
        'CMS_GetCpuUsageData',
        'CMS_GetCpuLoadavgData',
        'CMS_GetCpuloadavg5mData',
        'CMS_GetCpuloadavg15mData',
        'CMS_GetMemUsedData',
        'CMS_GetMemUsageData',
        'CMS_GetDiskUsageData',
        'CMS_GetDiskTotalData',
        'CMS_GetDiskUsedData',
        'PromptUnderstanding',
        'ListAPIs',
        'GetAPIInfo',
        'CommonAPICaller',
        'LOCAL_ListDirectory',
        'LOCAL_RunShellScript',
        'LOCAL_AnalyzeDeployStack',
        'OOS_RunCommand',
        'OOS_StartInstances',
        'OOS_StopInstances',
        'OOS_RebootInstances',
        'OOS_RunInstances',
        'OOS_ResetPassword',
        'OOS_ReplaceSystemDisk',
        'OOS_StartRDSInstances',
        'OOS_StopRDSInstances',
        'OOS_RebootRDSInstances',
        'OSS_ListBuckets',
        'OSS_ListObjects',
        'OSS_PutBucket',
        'OSS_DeleteBucket',
        'OOS_CodeDeploy',
        'OOS_GetLastDeploymentInfo',
        'OOS_GetDeployStatus',
        'ECS_DescribeInstances',
      ].join(','),
    ],
    env: {
      HOME: '{WORKDIR}/home',
      ALIBABA_CLOUD_ACCESS_KEY_ID: 'placeholder',
      ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'placeholder',
    },
    ecosystem: 'pydantic',
    library: 'fastmcp 2.8.0 (pydantic 2.11.3)',
    split: 'held-out',
  },
  // nineteenth draw, part B
  redmine: {
    repository: 'jztan/redmine-mcp-server',
    path: 'src/redmine_mcp_server/tools',
    install: { pypi: 'redmine-mcp-server==2.19.0' },
    // Over stdio with a placeholder API key and the Redmine URL on the loopback address; the optional plugin tool sets
    // (agile, tags, checklists, CRM...) stay off, as by default.
    command: ['bin/redmine-mcp-server'],
    env: { HOME: '{WORKDIR}/home', REDMINE_MCP_TRANSPORT: 'stdio', REDMINE_URL: LOOPBACK, REDMINE_API_KEY: 'placeholder' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 (pydantic 2.14.4)',
    split: 'held-out',
  },
  haproxy: {
    repository: 'tuannvm/haproxy-mcp-server',
    path: 'internal/mcp',
    install: { go: 'github.com/tuannvm/haproxy-mcp-server/cmd@v1.1.1' },
    // Over stdio with the stats client alone on the loopback address: the runtime-API client dials HAProxy at start,
    // so its mode is set to one the server skips; the stats client connects only when a tool runs, and every tool is
    // registered either way.
    command: ['bin/cmd'],
    env: {
      HOME: '{WORKDIR}/home',
      MCP_TRANSPORT: 'stdio',
      HAPROXY_RUNTIME_MODE: 'none',
      HAPROXY_STATS_ENABLED: 'true',
      HAPROXY_STATS_URL: LOOPBACK,
    },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.25.0',
    split: 'held-out',
  },
  // The twentieth draw (zod, pydantic, Go), labelled blind before the audit ran on it.
  // twentieth draw, part A
  resend: {
    repository: 'resend/resend-mcp',
    path: 'src/tools',
    // 2.2.0: the later releases (2.17 and up) carry 105 tools, which would weigh the draw. Over stdio with a
    // placeholder API key, used only when a tool is called.
    install: { npm: 'resend-mcp@2.2.0' },
    command: npmBin('resend-mcp'),
    env: { HOME: '{WORKDIR}/home', RESEND_API_KEY: 're_placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.26.0 (zod 4.3.6)',
    split: 'held-out',
  },
  tauri: {
    repository: 'hypothesi/mcp-server-tauri',
    path: 'packages/mcp-server/src',
    install: { npm: '@hypothesi/tauri-mcp-server@0.13.0' },
    // Over stdio; it connects to a running Tauri app only when a session tool is called.
    command: npmBin('mcp-server-tauri'),
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 0.6.1 (zod 3.25.76 via zod-to-json-schema 3.25.0)',
    split: 'held-out',
  },
  notebooklm: {
    repository: 'jacob-bd/gemini-notebook-mcp-cli',
    path: 'src/notebooklm_tools/mcp/tools',
    install: { pypi: 'notebooklm-mcp-cli==0.15.8' },
    // Over stdio with no saved login: it reads its cookies only when a tool is called.
    command: ['bin/notebooklm-mcp'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 (pydantic 2.14.4)',
    split: 'held-out',
  },
  // twentieth draw, part B
  atlan: {
    repository: 'atlanhq/agent-toolkit',
    path: 'modelcontextprotocol/server.py',
    install: { pypi: 'atlan-mcp-server==0.3.3' },
    // Over stdio (its default) with a placeholder API key and the Atlan URL on the loopback address: the client
    // connects only when a tool is called.
    command: ['bin/atlan-mcp-server'],
    env: { HOME: '{WORKDIR}/home', ATLAN_BASE_URL: LOOPBACK, ATLAN_API_KEY: 'placeholder' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 (pydantic 2.13.5)',
    split: 'held-out',
  },
  gitee: {
    repository: 'oschina/mcp-gitee',
    path: 'operations',
    // The Go binary its npm package ships (the Go module lives on gitee.com, which the module proxy does not serve).
    // Over stdio (its default) with a placeholder token and the API base on the loopback address: Gitee is called
    // only when a tool runs.
    install: { npm: '@gitee/mcp-gitee-linux-amd64@1.0.0' },
    command: goBin('@gitee/mcp-gitee-linux-amd64', 'mcp-gitee-linux-amd64'),
    env: { HOME: '{WORKDIR}/home', GITEE_ACCESS_TOKEN: 'placeholder', GITEE_API_BASE: `${LOOPBACK}/api/v5` },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.32.0',
    split: 'held-out',
  },
  yutu: {
    repository: 'eat-pray-ai/yutu',
    path: 'cmd',
    // The Go binary its npm package ships (the module proxy refuses its tags). `yutu mcp` over stdio with no OAuth
    // client or token: it reads them only when a tool is called.
    install: { npm: '@eat-pray-ai/yutu-linux-x64@0.10.10' },
    command: [...goBin('@eat-pray-ai/yutu-linux-x64', 'yutu'), 'mcp'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.6.1 (google/jsonschema-go v0.4.3)',
    split: 'held-out',
  },
  // The twenty-first draw (zod, pydantic, Go), labelled blind before the audit ran on it; training since its blind figures.
  // twenty-first draw, part A
  'mapbox-devkit': {
    repository: 'mapbox/mcp-devkit-server',
    path: 'src/tools',
    install: { npm: '@mapbox/mcp-devkit-server@0.8.2' },
    // Over stdio with a token of the public-token shape: the server reads it at start and lists tools without calling
    // the API. (The same vendor as `mapbox`, a different repository and no tool in common.)
    command: npmBin('mapbox-mcp-devkit'),
    env: { MAPBOX_ACCESS_TOKEN: 'pk.eyJ1IjoicGxhY2Vob2xkZXIiLCJhIjoicGxhY2Vob2xkZXIifQ.placeholder', HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.6.7)',
    split: 'training',
  },
  bnbchain: {
    repository: 'bnb-chain/bnbchain-mcp',
    path: 'src',
    install: { npm: '@bnb-chain/mcp@1.5.1' },
    // Over stdio with no private key: the RPC endpoints are called only when a tool runs.
    command: npmBin('bnbchain-mcp'),
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema)',
    split: 'training',
  },
  'lean-lsp': {
    repository: 'oOo0oOo/lean-lsp-mcp',
    path: 'src/lean_lsp_mcp/tools',
    install: { pypi: 'lean-lsp-mcp==0.32.0' },
    // Over stdio with no Lean project: it starts the Lean language server only when a tool is called.
    command: ['bin/lean-lsp-mcp'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 2.2.0 MCPServer (pydantic 2.14.4)',
    split: 'training',
  },
  // twenty-first draw, part B
  teradata: {
    repository: 'Teradata/teradata-mcp-server',
    path: 'src/teradata_mcp_server/tools',
    install: { pypi: 'teradata-mcp-server==0.2.8' },
    // Over stdio with a placeholder connection string on the loopback address: with no database it registers its
    // static tool set (the tools that need a live connection, a vector store or a DSA backend stay off).
    command: ['bin/teradata-mcp-server', '--mcp_transport', 'stdio'],
    env: { HOME: '{WORKDIR}/home', DATABASE_URI: 'teradata://placeholder:placeholder@127.0.0.1:1/placeholder' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 (pydantic 2.14.4)',
    split: 'training',
  },
  kiali: {
    repository: 'kiali/kiali-mcp-server',
    path: 'pkg/toolsets/kiali',
    // The Go binary its npm package ships (the module proxy refuses the module). Its kiali toolset alone: the others
    // (core, config, helm) are the kubernetes-mcp-server tools it was forked from. A kubeconfig naming a loopback
    // cluster: Kiali and the cluster are called only when a tool runs.
    install: { npm: 'kiali-mcp-server-linux-amd64@0.5.0' },
    command: [...goBin('kiali-mcp-server-linux-amd64', 'kiali-mcp-server-linux-amd64'), '--toolsets', 'kiali'],
    env: { HOME: '{WORKDIR}/home', KUBECONFIG: '{WORKDIR}/kubeconfig' },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.41.1',
    split: 'training',
  },
  // The twenty-second draw (zod, pydantic, Go), labelled blind before the audit ran on it; training since its blind figures.
  // twenty-second draw, part A
  'gcloud-storage': {
    repository: 'googleapis/gcloud-mcp',
    path: 'packages/storage-mcp/src/tools',
    install: { npm: '@google-cloud/storage-mcp@0.6.0' },
    // Over stdio with no Google credentials: it looks them up only when a tool calls Cloud Storage or BigQuery.
    command: npmBin('storage-mcp'),
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  'teams-mcp': {
    repository: 'floriscornel/teams-mcp',
    path: 'src/tools',
    install: { npm: '@floriscornel/teams-mcp@0.3.2' },
    // Over stdio with no saved Microsoft login: it reads its token cache only when a tool calls Microsoft Graph.
    command: npmBin('teams-mcp'),
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  zabbix: {
    repository: 'mhajder/zabbix-mcp',
    path: 'zabbix_mcp/tools',
    install: { pypi: 'zabbix-mcp==0.7.1' },
    // Over stdio (its default), all 53 tools (read and write), with a placeholder API token and the Zabbix URL on
    // the loopback address: it connects only when a tool is called.
    command: ['bin/zabbix-mcp'],
    env: { HOME: '{WORKDIR}/home', ZABBIX_URL: LOOPBACK, ZABBIX_TOKEN: 'placeholder' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 (pydantic 2.14.4)',
    split: 'training',
  },
  // twenty-second draw, part B
  docling: {
    repository: 'docling-project/docling-mcp',
    path: 'docling_mcp/tools',
    install: { pypi: 'docling-mcp==3.3.0' },
    // Over stdio with its default tool groups (conversion, generation, manipulation): it converts documents only when
    // a tool is called.
    command: ['bin/docling-mcp-server', '--transport', 'stdio'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 MCPServer (pydantic 2.14.4)',
    split: 'training',
  },
  istio: {
    repository: 'krutsko/istio-mcp-server',
    path: 'pkg/mcp',
    // The Go binary its npm package ships. A kubeconfig naming a loopback cluster: the cluster is called only when a
    // tool runs.
    install: { npm: 'istio-mcp-server-linux-amd64@0.0.32' },
    command: goBin('istio-mcp-server-linux-amd64', 'istio-mcp-server-linux-amd64'),
    env: { HOME: '{WORKDIR}/home', KUBECONFIG: '{WORKDIR}/kubeconfig' },
    ecosystem: 'go',
    library: 'github.com/mark3labs/mcp-go v0.32.0',
    split: 'training',
  },
  'jmrplens-gitlab': {
    repository: 'jmrplens/gitlab-mcp-server',
    path: 'internal/tools',
    // The Go binary its PyPI wheel ships (the module proxy refuses the module). Its individual-tool surface holds 872
    // tools; five of its groups only (branches, tags, releases, wikis, feature flags), the others excluded by group
    // name. Licensing tier and token scopes forced, so that nothing is asked of GitLab, which sits on the loopback
    // address and is called only when a tool runs.
    install: { pypi: 'jmrplens-gitlab-mcp-server==3.3.0' },
    command: ['bin/gitlab-mcp-server'],
    env: {
      HOME: '{WORKDIR}/home',
      GITLAB_URL: LOOPBACK,
      GITLAB_TOKEN: 'glpat-placeholder',
      GITLAB_MCP_TIER: 'free',
      GITLAB_MCP_IGNORE_SCOPES: 'true',
      GITLAB_MCP_TOOL_SURFACE: 'individual',
      GITLAB_MCP_EXCLUDE_TOOLS: [
        'gitlab_access,gitlab_achievement,gitlab_admin,gitlab_ci_catalog,gitlab_ci_variable,gitlab_custom_emoji',
        'gitlab_discover_project,gitlab_environment,gitlab_group,gitlab_interactive_issue_create',
        'gitlab_interactive_mr_create,gitlab_interactive_project_create,gitlab_interactive_release_create',
        'gitlab_issue,gitlab_job,gitlab_merge_request,gitlab_model_registry,gitlab_mr_review,gitlab_package',
        'gitlab_pipeline,gitlab_project,gitlab_repository,gitlab_runner,gitlab_search,gitlab_server,gitlab_snippet',
        'gitlab_storage_move,gitlab_template,gitlab_user',
      ].join(','),
    },
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.8.0 (google/jsonschema-go v0.4.3)',
    split: 'training',
  },
  // The twenty-third draw (zod, pydantic, Go), labelled blind before the audit ran on it.
  // twenty-third draw, part A
  sanity: {
    repository: 'sanity-io/sanity-mcp-server',
    path: 'src/tools',
    install: { npm: '@sanity/mcp-server@0.12.1' },
    // Over stdio with a placeholder token and project id, as a developer (the role it insists on at start): the
    // Sanity API is called only when a tool runs.
    command: npmBin('sanity-mcp-server'),
    env: {
      HOME: '{WORKDIR}/home',
      SANITY_API_TOKEN: 'placeholder',
      SANITY_PROJECT_ID: 'placeholder',
      SANITY_DATASET: 'production',
      MCP_USER_ROLE: 'developer',
    },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'held-out',
  },
  itential: {
    repository: 'itential/itential-mcp',
    path: 'src/itential_mcp/tools',
    install: { pypi: 'itential-mcp==0.14.1' },
    // Over stdio (its default) with its default tags (experimental and beta excluded) and the Itential Platform on
    // the loopback address: it logs in only when a tool is called.
    command: ['bin/itential-mcp', 'run', '--platform-host', '127.0.0.1', '--platform-port', '1'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'fastmcp 3.4.11 (pydantic 2.14.4)',
    split: 'held-out',
  },
  // twenty-third draw, part B
  oastools: {
    repository: 'erraggy/oastools',
    path: 'internal/mcpserver',
    // The `mcp` subcommand of the OpenAPI toolkit, over stdio: it reads specs only when a tool is called.
    install: { go: 'github.com/erraggy/oastools/cmd/oastools@v1.52.2' },
    command: ['bin/oastools', 'mcp'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'go',
    library: 'github.com/modelcontextprotocol/go-sdk v1.3.1 (google/jsonschema-go v0.4.2)',
    split: 'held-out',
  },
  prefect: {
    repository: 'PrefectHQ/prefect-mcp-server',
    path: 'src/prefect_mcp_server',
    // Over stdio with the Prefect API and the documentation server it mounts on the loopback address (both called
    // only when a tool runs; the mounted documentation tools drop out), and the experimental execution-plan tools on.
    install: { pypi: 'prefect-mcp==0.0.1b13' },
    command: ['bin/prefect-mcp-server'],
    env: {
      HOME: '{WORKDIR}/home',
      PREFECT_HOME: '{WORKDIR}/home/.prefect',
      PREFECT_API_URL: `${LOOPBACK}/api`,
      PREFECT_DOCS_MCP_URL: `${LOOPBACK}/mcp`,
      PREFECT_MCP_EXPERIMENTAL_EXECUTION_PLANS_ENABLED: 'true',
    },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 (pydantic 2.14.4)',
    split: 'held-out',
  },
  // The twenty-fourth draw (zod, pydantic), labelled blind before the audit ran on it; training since its blind figures.
  // twenty-fourth draw, part A
  sonarqube: {
    repository: 'sapientpants/sonarqube-mcp-server',
    path: 'src/index.ts',
    install: { npm: 'sonarqube-mcp-server@1.10.21' },
    // Over stdio with a placeholder token and SonarQube on the loopback address: it calls SonarQube only when a tool
    // runs.
    command: npmBin('sonarqube-mcp-server'),
    env: { HOME: '{WORKDIR}/home', SONARQUBE_TOKEN: 'placeholder', SONARQUBE_URL: LOOPBACK },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  pubmed: {
    repository: 'cyanheads/pubmed-mcp-server',
    path: 'src/mcp-server/tools/definitions',
    install: { npm: '@cyanheads/pubmed-mcp-server@2.7.4' },
    // Over stdio with a placeholder contact address for NCBI: it calls NCBI only when a tool runs.
    command: npmBin('pubmed-mcp-server'),
    env: { HOME: '{WORKDIR}/home', MCP_TRANSPORT_TYPE: 'stdio', NCBI_ADMIN_EMAIL: 'placeholder@example.com' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.6.7) through @cyanheads/mcp-ts-core 0.9.21',
    split: 'training',
  },
  netbox: {
    repository: 'mhajder/netbox-mcp',
    path: 'netbox_mcp/tools',
    install: { pypi: 'netbox-mcp==0.2.1' },
    // Over stdio (its default), all tools (read and write), with a placeholder API token and NetBox on the loopback
    // address: it connects only when a tool is called.
    command: ['bin/netbox-mcp'],
    env: { HOME: '{WORKDIR}/home', NETBOX_URL: LOOPBACK, NETBOX_TOKEN: 'nbt_placeholder' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 (pydantic 2.14.4)',
    split: 'training',
  },
  // twenty-fourth draw, part B
  'aliyun-observability': {
    repository: 'aliyun/alibabacloud-observability-mcp-server',
    path: 'src/mcp_server_aliyun_observability/toolkits',
    // mcp pinned below 2 (the package imports FastMCP from mcp.server, which mcp 2 no longer has) and python-dotenv
    // added (imported but not declared). Over stdio with both tool scopes and placeholder keys: Alibaba Cloud is
    // called only when a tool runs.
    install: { pypi: 'mcp-server-aliyun-observability==1.0.8 mcp==1.30.0 python-dotenv==1.2.4' },
    command: [
      'bin/mcp-server-aliyun-observability',
      '--transport',
      'stdio',
      '--scope',
      'all',
      '--access-key-id',
      'placeholder',
      '--access-key-secret',
      'placeholder',
    ],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  langsmith: {
    repository: 'langchain-ai/langsmith-mcp-server',
    path: 'langsmith_mcp_server/services/register_tools.py',
    install: { pypi: 'langsmith-mcp-server==0.1.1' },
    // Over stdio with a placeholder key and the LangSmith API on the loopback address: it is called only when a
    // tool runs.
    command: ['bin/langsmith-mcp-server'],
    env: { HOME: '{WORKDIR}/home', LANGSMITH_API_KEY: 'lsv2_placeholder', LANGSMITH_ENDPOINT: LOOPBACK },
    ecosystem: 'pydantic',
    library: 'fastmcp 3.0.2 (pydantic 2.14.4)',
    split: 'training',
  },
  'kubectl-mcp': {
    repository: 'rohitg00/kubectl-mcp-server',
    path: 'kubectl_mcp_tool/tools',
    install: { pypi: 'kubectl-mcp-server==2.0.0' },
    // Over stdio with its default toolsets (core, helm) and a kubeconfig naming a loopback cluster: the cluster is
    // called only when a tool runs.
    command: ['bin/kubectl-mcp'],
    env: { HOME: '{WORKDIR}/home', KUBECONFIG: '{WORKDIR}/kubeconfig' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 (pydantic 2.14.4)',
    split: 'training',
  },
  // The twenty-fifth draw (zod, pydantic), labelled blind before the audit ran on it; training since its blind figures.
  // twenty-fifth draw, part A
  'gongrzhe-gmail': {
    repository: 'GongRzhe/Gmail-MCP-Server',
    path: 'src/index.ts',
    install: { npm: '@gongrzhe/server-gmail-autoauth-mcp@1.1.11' },
    // Over stdio with placeholder OAuth client keys and a placeholder token written beside it: Gmail is called only
    // when a tool runs.
    command: npmBin('gmail-mcp'),
    env: {
      HOME: '{WORKDIR}/home',
      GMAIL_OAUTH_PATH: '{WORKDIR}/gongrzhe-gmail/gcp-oauth.keys.json',
      GMAIL_CREDENTIALS_PATH: '{WORKDIR}/gongrzhe-gmail/credentials.json',
    },
    stubs: {
      'gcp-oauth.keys.json':
        '{"installed":{"client_id":"placeholder.apps.googleusercontent.com","client_secret":"placeholder","redirect_uris":["http://localhost:3000/oauth2callback"]}}\n',
      'credentials.json':
        '{"access_token":"placeholder","refresh_token":"placeholder","token_type":"Bearer","expiry_date":4102444800000}\n',
    },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 0.4.0 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  'google-docs': {
    repository: 'a-bonus/google-docs-mcp',
    path: 'src/tools',
    install: { npm: '@a-bonus/google-docs-mcp@1.11.3' },
    // Over stdio with its docs and drive tool groups only (all six groups make 119 tools), placeholder OAuth client
    // settings and a placeholder saved token: Google is called only when a tool runs.
    command: npmBin('google-docs-mcp'),
    env: {
      HOME: '{WORKDIR}/home',
      MCP_TOOL_GROUPS: 'docs,drive',
      XDG_CONFIG_HOME: '{WORKDIR}/google-docs/config',
      GOOGLE_CLIENT_ID: 'placeholder.apps.googleusercontent.com',
      GOOGLE_CLIENT_SECRET: 'placeholder',
    },
    stubs: {
      'config/google-docs-mcp/token.json':
        '{"type":"authorized_user","refresh_token":"placeholder","access_token":"placeholder","token_type":"Bearer","scope":"placeholder"}\n',
    },
    ecosystem: 'zod',
    library: 'fastmcp 4.20.16 over @modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via xsschema 0.4.4 and zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  'mcp-email-server': {
    repository: 'ai-zerolab/mcp-email-server',
    path: 'mcp_email_server/app.py',
    install: { pypi: 'mcp-email-server==1.13.3' },
    // Over stdio with no account configured: it reads its (absent) configuration only when a tool runs.
    command: ['bin/mcp-email-server', 'stdio'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  // twenty-fifth draw, part B
  opencti: {
    repository: 'Space-C0wboy/OpenCTI-MCP-Server',
    path: 'src/opencti_mcp/tools',
    install: { pypi: 'opencti-mcp==0.1.1' },
    // Over stdio with a placeholder token and OpenCTI on the loopback address: it is called only when a tool runs.
    command: ['bin/opencti-mcp'],
    env: { HOME: '{WORKDIR}/home', OPENCTI_URL: LOOPBACK, OPENCTI_TOKEN: 'placeholder' },
    ecosystem: 'pydantic',
    library: 'fastmcp 2.14.7 (pydantic 2.14.4)',
    split: 'training',
  },
  vikunja: {
    repository: 'ivantohelpyou/vikunja-mcp',
    path: 'src/vikunja_mcp/server.py',
    install: { pypi: 'vikunja-mcp==0.10.3' },
    // Over stdio with a placeholder token and Vikunja on the loopback address: it is called only when a tool runs.
    command: ['bin/vikunja-mcp'],
    env: { HOME: '{WORKDIR}/home', VIKUNJA_URL: LOOPBACK, VIKUNJA_TOKEN: 'placeholder' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 (pydantic 2.14.4)',
    split: 'training',
  },
  // The twenty-sixth draw (zod, pydantic), labelled blind before the audit ran on it; training since its blind figures.
  // twenty-sixth draw, part A
  lunchmoney: {
    repository: 'akutishevsky/lunchmoney-mcp',
    path: 'src/tools',
    install: { npm: '@akutishevsky/lunchmoney-mcp@3.0.0' },
    // Over stdio with a placeholder token: Lunch Money is called only when a tool runs.
    command: npmBin('lunchmoney-mcp'),
    env: { HOME: '{WORKDIR}/home', LUNCHMONEY_API_TOKEN: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  'metabase-cognition': {
    repository: 'CognitionAI/metabase-mcp-server',
    path: 'src/tools',
    install: { npm: '@cognitionai/metabase-mcp-server@2.2.0' },
    // Over stdio with a placeholder API key and Metabase on the loopback address: it is called only when a tool runs.
    command: npmBin('metabase-mcp-server'),
    env: { HOME: '{WORKDIR}/home', METABASE_URL: LOOPBACK, METABASE_API_KEY: 'placeholder' },
    ecosystem: 'zod',
    library: 'fastmcp 3.23.1 over @modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via xsschema 0.4.0-beta.5 and zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  rcsb: {
    repository: 'rcsb/rcsb-mcp',
    path: 'src/rcsb_mcp',
    install: { pypi: 'rcsb-mcp==0.23.0' },
    // Over stdio: the RCSB PDB APIs are public and called only when a tool runs.
    command: ['bin/rcsb-mcp'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  // twenty-sixth draw, part B
  'fabric-rti': {
    repository: 'microsoft/fabric-rti-mcp',
    path: 'fabric_rti_mcp/services',
    install: { pypi: 'microsoft-fabric-rti-mcp==0.6.2' },
    // Over stdio with no Kusto service or Fabric credentials configured: Azure is called only when a tool runs.
    command: ['bin/microsoft-fabric-rti-mcp'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  keycloak: {
    repository: 'shigechika/keycloak-mcp',
    path: 'keycloak_mcp/server.py',
    install: { pypi: 'keycloak-mcp==1.5.1' },
    // Over stdio with placeholder service-account credentials and Keycloak on the loopback address: it is called
    // only when a tool runs.
    command: ['bin/keycloak-mcp'],
    env: {
      HOME: '{WORKDIR}/home',
      KEYCLOAK_URL: LOOPBACK,
      KEYCLOAK_REALM: 'master',
      KEYCLOAK_CLIENT_ID: 'placeholder',
      KEYCLOAK_CLIENT_SECRET: 'placeholder',
    },
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 MCPServer (FastMCP; pydantic 2.14.4)',
    split: 'training',
  },
  // The twenty-seventh draw (zod, pydantic), labelled blind before the audit ran on it; training since its blind figures.
  // twenty-seventh draw, part A
  webflow: {
    repository: 'webflow/mcp-server',
    path: 'src/tools',
    install: { npm: 'webflow-mcp-server@1.0.0' },
    // Over stdio with a placeholder token: Webflow is called only when a tool runs.
    command: npmBin('webflow-mcp-server'),
    env: { HOME: '{WORKDIR}/home', WEBFLOW_TOKEN: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  '1password': {
    repository: 'CakeRepository/1Password-MCP',
    path: 'src/tools',
    install: { npm: '@takescake/1password-mcp@4.0.2' },
    // Over stdio with a placeholder service-account token: 1Password is called only when a tool runs.
    command: npmBin('1password-mcp'),
    env: { HOME: '{WORKDIR}/home', OP_SERVICE_ACCOUNT_TOKEN: 'ops_placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/server 2.4.0 (zod 4.6.7)',
    split: 'training',
  },
  activecampaign: {
    // The PyPI package names no repository (its README says it is archived in favour of a remote server); the
    // path is the tool module's place in the published wheel.
    repository: 'ActiveCampaign/ac-mcp-server',
    path: 'ac_mcp_server/tools.py',
    // fastmcp 3 and later no longer accept the FastMCP(log_level=...) the server passes.
    install: { pypi: 'ac-mcp-server==0.12.0 fastmcp==2.12.4' },
    // Over stdio with a placeholder token and ActiveCampaign on the loopback address: it is called only when a tool
    // runs.
    command: ['bin/ac-mcp-server'],
    env: { HOME: '{WORKDIR}/home', AC_API_URL: LOOPBACK, AC_API_TOKEN: 'placeholder' },
    ecosystem: 'pydantic',
    library: 'fastmcp 2.12.4 over mcp 1.30.0 (pydantic 2.14.4)',
    split: 'training',
  },
  // twenty-seventh draw, part B
  'sumo-logic': {
    repository: 'rajfirke/sumo-logic-mcp',
    path: 'src/sumo_logic_mcp/tools',
    install: { pypi: 'sumo-logic-mcp==1.0.0' },
    // Over stdio with placeholder access keys: Sumo Logic is called only when a tool runs.
    command: ['bin/sumo-logic-mcp'],
    env: {
      HOME: '{WORKDIR}/home',
      SUMOLOGIC_ACCESS_ID: 'placeholder',
      SUMOLOGIC_ACCESS_KEY: 'placeholder',
      SUMOLOGIC_ENDPOINT: LOOPBACK,
    },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  'brave-search': {
    repository: 'brave/brave-search-mcp-server',
    path: 'src/tools',
    install: { npm: '@brave/brave-search-mcp-server@2.1.4' },
    // Over stdio with a placeholder API key: the Brave Search API is called only when a tool runs.
    command: [...npmBin('brave-search-mcp-server'), '--transport', 'stdio'],
    env: { HOME: '{WORKDIR}/home', BRAVE_API_KEY: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.30.0 (zod 4.3.6, re-emitted as JSON Schema 2020-12 by z.toJSONSchema)',
    split: 'training',
  },
  ccxt: {
    repository: 'doggybee/mcp-server-ccxt',
    path: 'src/tools',
    install: { npm: '@mcpfun/mcp-server-ccxt@1.2.1' },
    // Over stdio with no exchange credentials: the exchanges are called only when a tool runs.
    command: npmBin('mcp-server-ccxt'),
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  // The twenty-eighth draw (zod, pydantic), labelled blind before the audit ran on it; training since its blind figures.
  // twenty-eighth draw, part A
  'calc-mcp': {
    repository: 'coo-quack/calc-mcp',
    path: 'src/tools',
    install: { npm: '@coo-quack/calc-mcp@2.1.1' },
    // Over stdio; every tool computes locally.
    command: npmBin('calc-mcp'),
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.30.0 (zod 4.6.2)',
    split: 'training',
  },
  drawio: {
    repository: 'lgazo/drawio-mcp-server',
    path: 'src/tools',
    install: { npm: 'drawio-mcp-server@2.3.0' },
    // Over stdio, its browser-extension WebSocket on a free high port: the Draw.io editor is reached only when a
    // tool runs.
    command: [...npmBin('drawio-mcp-server'), '--extension-port', '43917', '--transport', 'stdio'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.30.0 (zod 4.2.1)',
    split: 'training',
  },
  'allure-testops': {
    repository: 'mshegolev/allure-testops-mcp',
    path: 'allure_testops_mcp',
    install: { pypi: 'allure-testops-mcp==0.9.3' },
    // Over stdio with the opt-in write tools on, a placeholder token and Allure TestOps on the loopback address: it
    // is called only when a tool runs.
    command: ['bin/allure-testops-mcp'],
    env: {
      HOME: '{WORKDIR}/home',
      ALLURE_URL: LOOPBACK,
      ALLURE_TOKEN: 'placeholder',
      ALLURE_ENABLE_WRITE: 'true',
    },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'training',
  },
  // twenty-eighth draw, part B
  'shinzo-gmail': {
    repository: 'shinzo-labs/gmail-mcp',
    path: 'src/index.ts',
    install: { npm: '@shinzolabs/gmail-mcp@1.7.4' },
    // Over stdio with no OAuth credentials: Gmail is called only when a tool runs.
    command: npmBin('gmail-mcp'),
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.16.0 (zod 3.22.4 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  'shopify-geli': {
    repository: 'GeLi2001/shopify-mcp',
    path: 'src/tools',
    install: { npm: 'shopify-mcp@1.0.8' },
    // Over stdio with a placeholder token and shop domain: Shopify is called only when a tool runs.
    command: [...npmBin('shopify-mcp'), '--accessToken', 'placeholder', '--domain', 'placeholder.myshopify.com'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  wikipedia: {
    repository: 'Rudra-ravi/wikipedia-mcp',
    path: 'wikipedia_mcp/server.py',
    install: { pypi: 'wikipedia-mcp==2.0.1' },
    // Over stdio: Wikipedia is called only when a tool runs.
    command: ['bin/wikipedia-mcp'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 over mcp 2.3.0 (pydantic 2.14.4)',
    split: 'training',
  },
  // The twenty-ninth draw (zod, pydantic), labelled blind before the audit ran on it; training since its blind figures.
  // twenty-ninth draw, part A
  'cursor-talk-to-figma': {
    repository: 'sonnylazuardi/cursor-talk-to-figma-mcp',
    path: 'src/talk_to_figma_mcp/server.ts',
    install: { npm: 'cursor-talk-to-figma-mcp@0.3.5' },
    // Over stdio: its WebSocket to the Figma plugin's relay (localhost:3055) finds nothing and retries; Figma is
    // reached only when a tool runs.
    command: npmBin('cursor-talk-to-figma-mcp'),
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.13.1 (zod 3.22.4 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  'mcp-ssh-manager': {
    repository: 'bvisible/mcp-ssh-manager',
    path: 'src/index.js',
    install: { npm: 'mcp-ssh-manager@3.8.5' },
    // Over stdio with no servers configured and no tool configuration (so every tool is on): SSH connections are
    // opened only when a tool runs.
    command: npmBin('mcp-ssh-manager'),
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.6.7, z.toJSONSchema draft-07)',
    split: 'training',
  },
  mikrotik: {
    repository: 'StefanKnol/mikrotik-mcp',
    path: 'mikrotik_mcp/tools.py',
    install: { pypi: 'mikrotik-mcp==0.3.0' },
    // Over stdio with a placeholder user and the router on the loopback address (port 1): RouterOS is reached only
    // when a tool runs.
    command: ['bin/mikrotik-mcp'],
    env: {
      HOME: '{WORKDIR}/home',
      MIKROTIK_HOST: '127.0.0.1',
      MIKROTIK_PORT: '1',
      MIKROTIK_USERNAME: 'placeholder',
      MIKROTIK_PASSWORD: 'placeholder',
    },
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 MCPServer (pydantic 2.14.4)',
    split: 'training',
  },
  // twenty-ninth draw, part B
  openzeppelin: {
    repository: 'OpenZeppelin/contracts-wizard',
    path: 'packages/mcp/src',
    install: { npm: '@openzeppelin/contracts-mcp@0.7.1' },
    // Over stdio: every tool generates contract source locally.
    command: npmBin('contracts-mcp'),
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.6.7)',
    split: 'training',
  },
  'unifi-protect': {
    repository: 'owine/unifi-protect-mcp',
    path: 'src/tools',
    install: { npm: '@owine/unifi-protect-mcp@2.14.0' },
    // Over stdio in its default read-only mode, with a placeholder API key and the console on the loopback address:
    // it is called only when a tool runs.
    command: npmBin('unifi-protect-mcp'),
    env: { HOME: '{WORKDIR}/home', UNIFI_PROTECT_HOST: '127.0.0.1:1', UNIFI_PROTECT_API_KEY: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.30.0 (zod 4.6.5)',
    split: 'training',
  },
  servicenow: {
    repository: 'jschuller/mcp-server-servicenow',
    path: 'src/servicenow_mcp/tools',
    install: { pypi: 'mcp-server-servicenow==0.9.2' },
    // Over stdio with placeholder basic-auth credentials and the instance on the loopback address: ServiceNow is
    // called only when a tool runs.
    command: ['bin/mcp-server-servicenow'],
    env: {
      HOME: '{WORKDIR}/home',
      SERVICENOW_INSTANCE_URL: LOOPBACK,
      SERVICENOW_USERNAME: 'placeholder',
      SERVICENOW_PASSWORD: 'placeholder',
    },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 over mcp 2.3.0 (pydantic 2.14.4)',
    split: 'training',
  },
  // The thirtieth draw (zod, pydantic), labelled blind before the audit ran on it; training since its blind figures.
  // thirtieth draw, part A
  cloudinary: {
    repository: 'cloudinary/asset-management-mcp',
    path: 'src/mcp-server/tools',
    install: { npm: '@cloudinary/asset-management-mcp@0.11.0' },
    // Placeholder credentials and a loopback server URL, used only on a tool call.
    command: [
      ...npmBin('mcp'),
      'start',
      '--api-key',
      'placeholder',
      '--api-secret',
      'placeholder',
      '--cloud-name',
      'placeholder',
      '--server-url',
      LOOPBACK,
    ],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.26.0 (zod 4.6.7)',
    split: 'training',
  },
  gsc: {
    repository: 'ahonn/mcp-server-gsc',
    path: 'src/schemas.ts',
    install: { npm: 'mcp-server-gsc@0.3.0' },
    // A placeholder service-account path (nothing there): the credentials are read only on a tool call.
    command: npmBin('mcp-server-gsc'),
    env: { HOME: '{WORKDIR}/home', GOOGLE_APPLICATION_CREDENTIALS: '{WORKDIR}/home/placeholder.json' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  hologres: {
    repository: 'aliyun/alibabacloud-hologres-mcp-server',
    path: 'src/hologres_mcp_server/server.py',
    install: { pypi: 'hologres-mcp-server==1.0.3' },
    // Over stdio with placeholder credentials and the database on a loopback port nothing listens on: its start-up
    // connection check only warns.
    command: ['bin/hologres-mcp-server'],
    env: {
      HOME: '{WORKDIR}/home',
      HOLOGRES_HOST: '127.0.0.1',
      HOLOGRES_PORT: '1',
      HOLOGRES_USER: 'placeholder',
      HOLOGRES_PASSWORD: 'placeholder',
      HOLOGRES_DATABASE: 'placeholder',
    },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 over mcp 2.3.0 (pydantic 2.14.4)',
    split: 'training',
  },
  // thirtieth draw, part B
  strava: {
    repository: 'r-huijts/strava-mcp',
    path: 'src/tools',
    install: { npm: '@r-huijts/strava-mcp-server@1.2.1' },
    // Over stdio with placeholder OAuth credentials: Strava is called only when a tool runs.
    command: npmBin('strava-mcp-server'),
    env: {
      HOME: '{WORKDIR}/home',
      STRAVA_CLIENT_ID: '1',
      STRAVA_CLIENT_SECRET: 'placeholder',
      STRAVA_ACCESS_TOKEN: 'placeholder',
      STRAVA_REFRESH_TOKEN: 'placeholder',
    },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  omnifocus: {
    repository: 'themotionmachine/OmniFocus-MCP',
    path: 'src/tools/definitions',
    install: { npm: 'omnifocus-mcp@1.16.0' },
    // Over stdio without its shared daemon (OMNIFOCUS_MCP_NO_DAEMON, so nothing outlives the listing): OmniFocus
    // (osascript, macOS) is reached only when a tool runs.
    command: npmBin('omnifocus-mcp'),
    env: { HOME: '{WORKDIR}/home', OMNIFOCUS_MCP_NO_DAEMON: '1' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  packetfabric: {
    repository: 'PacketFabric/public-mcp',
    path: 'packetfabric_mcp/server.py',
    install: { pypi: 'packetfabric-mcp==0.2.4' },
    // Over stdio with a placeholder token and the API on the loopback address, writes left disabled (the default):
    // PacketFabric is called only when a tool runs.
    command: ['bin/packetfabric-mcp'],
    env: { HOME: '{WORKDIR}/home', PF_TOKEN: 'placeholder', PF_API_URL: LOOPBACK },
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 MCPServer (pydantic 2.14.4)',
    split: 'training',
  },
  // The thirty-first draw (zod, pydantic), labelled blind before the audit ran on it; training since its blind figures.
  // thirty-first draw, part A
  dynatrace: {
    repository: 'dynatrace-oss/dynatrace-mcp',
    path: 'src/index.ts',
    install: { npm: '@dynatrace-oss/dynatrace-mcp-server@2.1.2' },
    // Over stdio with a placeholder platform token and telemetry off. DT_ENVIRONMENT must be an https
    // *.apps.dynatrace.com address (no loopback), and one holding "abc12345" is its demo configuration, which skips the
    // start-up connection test: the tenant is then called only when a tool runs.
    command: npmBin('mcp-server-dynatrace'),
    env: {
      HOME: '{WORKDIR}/home',
      DT_ENVIRONMENT: 'https://abc12345.apps.dynatrace.com',
      DT_PLATFORM_TOKEN: 'placeholder',
      DT_MCP_DISABLE_TELEMETRY: 'true',
    },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.27.1 bundled in its build (zod 4.1.13, z.toJSONSchema draft-07)',
    split: 'training',
  },
  'tantiope-datadog': {
    repository: 'TANTIOPE/datadog-mcp-server',
    path: 'src/tools',
    install: { npm: 'datadog-mcp@5.8.2' },
    // Over stdio with placeholder API and application keys: Datadog is called only when a tool runs.
    command: npmBin('datadog-mcp'),
    env: { HOME: '{WORKDIR}/home', DD_API_KEY: 'placeholder', DD_APP_KEY: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.25.1 bundled in its build (zod 3.25.76 via zod-to-json-schema 3.25.0)',
    split: 'training',
  },
  'astro-airflow': {
    repository: 'astronomer/agents',
    path: 'astro-airflow-mcp/src/astro_airflow_mcp/tools',
    install: { pypi: 'astro-airflow-mcp==0.9.1' },
    // Over stdio with a placeholder bearer token, Airflow on the loopback address and telemetry off: the Airflow
    // version (and so the API adapter) is detected only when a tool runs.
    command: ['bin/astro-airflow-mcp', '--airflow-url', LOOPBACK, '--auth-token', 'placeholder'],
    env: { HOME: '{WORKDIR}/home', AF_TELEMETRY_DISABLED: '1' },
    ecosystem: 'pydantic',
    library: 'fastmcp 3.4.11 over mcp 1.30.0 (pydantic 2.14.4)',
    split: 'training',
  },
  // thirty-first draw, part B
  fr24: {
    repository: 'Flightradar24/fr24api-mcp',
    path: 'src/server.ts',
    install: { npm: '@flightradar24/fr24api-mcp@1.0.2' },
    // Over stdio with a placeholder API key: the Flightradar24 API is called only when a tool runs.
    command: npmBin('mcp-fr24api-mcp'),
    env: { HOME: '{WORKDIR}/home', FR24_API_KEY: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.17.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  emailmcp: {
    repository: 'codefuturist/email-mcp',
    path: 'src/tools',
    install: { npm: '@codefuturist/email-mcp@0.2.0' },
    // `stdio` with one placeholder account on loopback IMAP/SMTP ports nothing listens on, read-only (MCP_EMAIL_READ_ONLY,
    // so the write tools stay unregistered) and the watcher off: mail servers are reached only when a tool runs.
    command: [...npmBin('email-mcp'), 'stdio'],
    env: {
      HOME: '{WORKDIR}/home',
      MCP_EMAIL_ADDRESS: 'placeholder@example.com',
      MCP_EMAIL_PASSWORD: 'placeholder',
      MCP_EMAIL_IMAP_HOST: '127.0.0.1',
      MCP_EMAIL_IMAP_PORT: '1',
      MCP_EMAIL_SMTP_HOST: '127.0.0.1',
      MCP_EMAIL_SMTP_PORT: '1',
      MCP_EMAIL_READ_ONLY: 'true',
    },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.6.7)',
    split: 'training',
  },
  joplin: {
    repository: 'alondmnt/joplin-mcp',
    path: 'src/joplin_mcp/tools',
    install: { pypi: 'joplin-mcp==0.10.0' },
    // Over stdio with a placeholder token and Joplin's Web Clipper API on a loopback port nothing listens on (its
    // start-up notebook check only warns); every tool switched on (JOPLIN_TOOL_*), the destructive ones included.
    command: ['bin/joplin-mcp'],
    env: {
      HOME: '{WORKDIR}/home',
      JOPLIN_TOKEN: 'placeholder',
      JOPLIN_HOST: '127.0.0.1',
      JOPLIN_PORT: '1',
      JOPLIN_TOOL_GET_ALL_NOTES: 'true',
      JOPLIN_TOOL_DELETE_NOTE: 'true',
      JOPLIN_TOOL_UPDATE_NOTEBOOK: 'true',
      JOPLIN_TOOL_DELETE_NOTEBOOK: 'true',
      JOPLIN_TOOL_UPDATE_TAG: 'true',
      JOPLIN_TOOL_DELETE_TAG: 'true',
      JOPLIN_TOOL_IMPORT_FROM_FILE: 'true',
    },
    ecosystem: 'pydantic',
    library: 'fastmcp 3.4.11 over mcp 1.30.0 (pydantic 2.14.4)',
    split: 'training',
  },
  // The thirty-second draw (zod, pydantic), labelled blind before the audit ran on it; training since its blind figures.
  // thirty-second draw, part A
  'microsoft-azure-devops': {
    repository: 'microsoft/azure-devops-mcp',
    path: 'src/tools',
    // --ignore-scripts: keytar (under @azure/msal-node-extensions, the interactive login's token cache) builds a native
    // module against libsecret at install; its loader is imported at start-up, so a stand-in without the native binding
    // replaces it (token authentication never stores a secret).
    install: { npm: '@azure-devops/mcp@2.10.0 --ignore-scripts' },
    // Over stdio for a placeholder organization with a placeholder tenant id (so the organization's tenant is not
    // looked up) and token authentication from ADO_MCP_AUTH_TOKEN: Azure DevOps is called only when a tool runs.
    command: [
      ...npmBin('mcp-server-azuredevops'),
      'placeholder-org',
      '--tenant',
      '00000000-0000-0000-0000-000000000000',
      '--authentication',
      'envvar',
    ],
    env: { HOME: '{WORKDIR}/home', ADO_MCP_AUTH_TOKEN: 'placeholder' },
    stubs: {
      'node_modules/keytar/lib/keytar.js':
        'const none = async () => null;\nmodule.exports = { getPassword: none, setPassword: none, deletePassword: none, findCredentials: async () => [], findPassword: none };\n',
    },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.29.0 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  'railway-community': {
    repository: 'jason-tan-swe/railway-mcp',
    path: 'src/tools',
    install: { npm: '@jasontanswe/railway-mcp@1.3.0' },
    // Over stdio with no token (RAILWAY_API_TOKEN unset, so none is checked at start-up; its `configure` tool sets one):
    // Railway's API is called only when a tool runs.
    command: npmBin('railway-mcp'),
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'training',
  },
  'mcp-pypi': {
    repository: 'kimasplund/mcp-pypi',
    path: 'mcp_pypi/server/tools',
    install: { pypi: 'mcp-pypi==4.0.1' },
    // `serve` over stdio: it needs no credentials, and PyPI and OSV are called only when a tool runs.
    command: ['bin/mcp-pypi', 'serve'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'fastmcp 4.2.3 over mcp 2.3.0 (pydantic 2.14.4)',
    split: 'training',
  },
  // thirty-second draw, part B
  'search-console': {
    repository: 'saurabhsharma2u/search-console-mcp',
    path: 'src/index.ts',
    install: { npm: 'search-console-mcp@2.1.3' },
    // Over stdio with no account configured (HOME is empty): it only warns that Google, GA4, Bing and AdSense are
    // not set up, and the APIs are called only when a tool runs.
    command: npmBin('search-console-mcp'),
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 4.6.7)',
    split: 'training',
  },
  obsidian: {
    repository: 'cyanheads/obsidian-mcp-server',
    path: 'src/mcp-server/tools/definitions',
    install: { npm: 'obsidian-mcp-server@3.2.9' },
    // Over stdio with a placeholder key, the Local REST API and Omnisearch on the loopback address (the start-up
    // Omnisearch probe fails, so search has no `omnisearch` mode) and the command-palette tools switched on.
    command: npmBin('obsidian-mcp-server'),
    env: {
      HOME: '{WORKDIR}/home',
      OBSIDIAN_API_KEY: 'placeholder',
      OBSIDIAN_BASE_URL: LOOPBACK,
      OBSIDIAN_OMNISEARCH_URL: LOOPBACK,
      OBSIDIAN_ENABLE_COMMANDS: 'true',
    },
    ecosystem: 'zod',
    library: '@cyanheads/mcp-ts-core 0.10.17 over @modelcontextprotocol/sdk 1.32.2 (zod 4.6.7)',
    split: 'training',
  },
  zendesk: {
    repository: 'michaelrice/zendesk-mcp',
    path: 'zendesk_mcp/tools',
    install: { pypi: 'zendesk-mcp==0.1.6' },
    // Over stdio with no config file (HOME is empty), so no OAuth token and no tool policy: every tool registers,
    // and Zendesk is reached only when a tool runs.
    command: ['bin/zendesk-mcp'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 2.3.0 MCPServer (pydantic 2.14.4)',
    split: 'training',
  },
  // The thirty-third draw (zod, pydantic), labelled blind before the audit ran on it.
  // thirty-third draw, part A
  'alibabacloud-devops': {
    repository: 'aliyun/alibabacloud-devops-mcp-server',
    path: 'tool-registry/code-management.ts',
    install: { npm: 'alibabacloud-devops-mcp-server@0.3.64' },
    // Over stdio with a placeholder token and only the code-management toolset (Codeup repositories, branches, files,
    // change requests and commits, plus the three base organization tools; all toolsets together are 203 tools):
    // Yunxiao's API is called only when a tool runs.
    command: [...npmBin('alibabacloud-devops-mcp-server'), '--toolsets=code-management'],
    env: { HOME: '{WORKDIR}/home', YUNXIAO_ACCESS_TOKEN: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'held-out',
  },
  'containerization-assist': {
    repository: 'Azure/containerization-assist',
    path: 'src/tools',
    install: { npm: 'containerization-assist-mcp@1.2.0' },
    // Over stdio with a Windows named pipe as the Docker socket (start-up stats a Unix socket path and refuses a
    // missing one, but takes a named pipe unchecked; nothing is listening on it here) and the kubeconfig on the
    // loopback address: Docker and Kubernetes are reached only when a tool runs.
    command: npmBin('containerization-assist-mcp'),
    env: { HOME: '{WORKDIR}/home', DOCKER_SOCKET: 'npipe:////./pipe/docker_engine', KUBECONFIG: '{WORKDIR}/kubeconfig' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.26.0 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'held-out',
  },
  rabbitmq: {
    repository: 'amazon-mq/mcp-server-rabbitmq',
    path: 'src/rabbitmq/module_v4.py',
    install: { pypi: 'amq-mcp-server-rabbitmq==4.0.0' },
    // Over stdio with the v4 consolidated tools and every tool group (--allow-mutative-tools); no broker is configured,
    // brokers are connected to only by its `connect` tools.
    command: ['bin/amq-mcp-server-rabbitmq', '--v4', '--allow-mutative-tools'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'fastmcp 3.4.11 over mcp 1.30.0 (pydantic 2.13.5)',
    split: 'held-out',
  },
  // thirty-third draw, part B
  monday: {
    repository: 'mondaycom/mcp',
    path: 'packages/agent-toolkit/src/core/tools',
    install: { npm: '@mondaydotcomorg/monday-api-mcp@3.3.0' },
    // Over stdio in read-only mode (the default API mode lists 92 tools) with a placeholder token: monday.com's API is
    // called only when a tool runs.
    command: [...npmBin('mcp-server-monday-api'), '--token', 'placeholder', '--read-only', 'true'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'held-out',
  },
  'todoist-community': {
    repository: 'stanislavlysenko0912/todoist-mcp-server',
    path: 'src/tools',
    install: { npm: 'todoist-mcp@1.3.4' },
    // Over stdio with a placeholder API_KEY: the start-up fetch of projects and labels for the instructions fails
    // (no network) and falls back to the static text; Todoist is called only when a tool runs.
    command: npmBin('todoist-mcp'),
    env: { HOME: '{WORKDIR}/home', API_KEY: 'placeholder' },
    ecosystem: 'zod',
    library: '@modelcontextprotocol/sdk 1.32.2 (zod 3.25.76 via zod-to-json-schema 3.25.2)',
    split: 'held-out',
  },
  yfinance: {
    repository: 'narumiruna/yfinance-mcp',
    path: 'src/yfmcp/server.py',
    install: { pypi: 'yfmcp==0.14.0' },
    // Over stdio: Yahoo Finance needs no credentials and is called only when a tool runs. Needs Python 3.12 or later
    // (python3 was pyenv's 3.12.1 when it was listed).
    command: ['bin/yfmcp'],
    env: { HOME: '{WORKDIR}/home' },
    ecosystem: 'pydantic',
    library: 'mcp 1.30.0 FastMCP (pydantic 2.14.4)',
    split: 'held-out',
  },
};

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/audit/unseen', import.meta.url));
const LISTER = fileURLToPath(new URL('./list-tools.ts', import.meta.url));

function install(workdir: string, name: string, server: Server): string {
  const dir = join(workdir, name);
  if ('npm' in server.install) {
    mkdirSync(dir, { recursive: true });
    if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{"private": true}\n');
    execFileSync('npm', ['install', '--no-audit', '--no-fund', ...server.install.npm.split(' ')], { cwd: dir, stdio: 'inherit' });
  } else if ('go' in server.install) {
    // `go install module@version` also asks for the module's version list (to warn of deprecation), which a proxy may
    // refuse while serving the version itself; a throwaway module that requires the version builds the same binary.
    mkdirSync(join(dir, 'bin'), { recursive: true });
    const spec = server.install.go;
    const command = spec.slice(0, spec.lastIndexOf('@'));
    if (!existsSync(join(dir, 'go.mod'))) execFileSync('go', ['mod', 'init', 'corpus'], { cwd: dir, stdio: 'inherit' });
    execFileSync('go', ['get', spec], { cwd: dir, stdio: 'inherit' });
    execFileSync('go', ['build', '-o', join(dir, 'bin', basename(command)), command], { cwd: dir, stdio: 'inherit' });
  } else {
    if (!existsSync(join(dir, 'bin', 'pip'))) execFileSync('python3', ['-m', 'venv', dir], { stdio: 'inherit' });
    execFileSync(join(dir, 'bin', 'pip'), ['install', '-q', ...server.install.pypi.split(' ')], { stdio: 'inherit' });
  }
  return dir;
}

function regenerate(workdir: string, name: string, server: Server): void {
  const dir = install(workdir, name, server);
  const fill = (s: string): string => s.replaceAll('{WORKDIR}', workdir);
  writeFileSync(
    join(workdir, 'kubeconfig'),
    'apiVersion: v1\nkind: Config\nclusters:\n- cluster: {server: "https://127.0.0.1:1"}\n  name: local\ncontexts:\n' +
      '- context: {cluster: local, user: u}\n  name: local\ncurrent-context: local\nusers:\n- name: u\n  user: {token: placeholder}\n',
  );
  mkdirSync(join(workdir, 'home'), { recursive: true });
  for (const [file, text] of Object.entries(server.stubs ?? {})) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text, { mode: 0o755 });
  }
  const envArgs = Object.entries(server.env ?? {}).flatMap(([k, v]) => ['--env', `${k}=${fill(v)}`]);
  const [command, ...args] = server.command.map(fill);
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', LISTER, '--cwd', dir, ...envArgs, '--', join(dir, command ?? ''), ...args],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const listed = JSON.parse(out) as { server: unknown; tools: { name: string }[] };
  const target = join(FIXTURES, name);
  mkdirSync(target, { recursive: true });
  const keep = new Set(['labels.json']);
  for (const file of readdirSync(target)) if (!keep.has(file)) rmSync(join(target, file));
  const tools = [...listed.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  writeFileSync(join(target, 'tools.json'), `${JSON.stringify(tools, null, 1)}\n`);
  const { install: how, repository, path, ecosystem, library, split } = server;
  const rest = { repository, path, ecosystem, library, split };
  const source = {
    ...rest,
    package: 'npm' in how ? `npm:${how.npm}` : 'go' in how ? `go:${how.go}` : `pypi:${how.pypi}`,
    serverInfo: listed.server,
    tools: tools.length,
  };
  writeFileSync(join(target, 'source.json'), `${JSON.stringify(source, null, 1)}\n`);
  process.stdout.write(`${name}: ${tools.length} tools\n`);
}

const [workdir, ...only] = process.argv.slice(2);
if (workdir === undefined) {
  process.stderr.write('usage: regenerate.ts WORKDIR [SERVER...]\n');
  process.exit(2);
}
const reserved = Object.entries(SERVERS).filter(([, server]) => (RESERVED as readonly string[]).includes(server.repository));
if (reserved.length > 0) throw new Error(`reserved for the outside check: ${reserved.map(([name]) => name).join(', ')}`);
for (const [name, server] of Object.entries(SERVERS)) if (only.length === 0 || only.includes(name)) regenerate(workdir, name, server);
