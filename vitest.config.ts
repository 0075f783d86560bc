import { defineConfig } from 'vitest/config';

// The Kubernetes projects start a cluster (k8s: test/k8s/global-setup.ts; k8s-down: one of its own, made to fail
// and torn down): only when asked for by name (`vitest run --project k8s`, as .ci/run does), never as part of a
// plain `vitest run` / `npm test`.
const argv = process.argv.slice(2);
const asked = (name: string): boolean =>
  argv.some((arg, i) => arg === `--project=${name}` || (arg === '--project' && argv[i + 1] === name));

// Projects: only `integration` (the worker against Kafka and the registry, and the worker image) gets the stack
// setup; unit, CLI, fuzz and deploy tests start no service, and compose brings its own. `npm run test:unit` runs
// `--project unit --project cli`; `npm test` runs them all.
export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 180_000,
    // Integration tests share one broker and registry; run files one at a time so they do not starve each other on 2 cores.
    fileParallelism: false,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'cli', include: ['test/cli/**/*.test.ts'] } },
      // The MCP proxy (built CLI) in front of real MCP servers from npm, over stdio and Streamable HTTP.
      { extends: true, test: { name: 'mcp', include: ['test/mcp/**/*.test.ts'] } },
      { extends: true, test: { name: 'fuzz', include: ['test/fuzz/**/*.test.ts'] } },
      { extends: true, test: { name: 'deploy', include: ['test/deploy/**/*.test.ts'] } },
      // The package as users get it: packed, installed in a fresh directory, compared with the CLI.
      { extends: true, test: { name: 'library', include: ['test/library/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/image/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
        },
      },
      { extends: true, test: { name: 'compose', include: ['test/compose/**/*.test.ts'] } },
      ...(asked('k8s')
        ? [
            {
              extends: true as const,
              test: {
                name: 'k8s',
                include: ['test/k8s/**/*.test.ts'],
                exclude: ['test/k8s/keda.test.ts'],
                globalSetup: ['test/k8s/global-setup.ts'],
              },
            },
          ]
        : []),
      // KEDA's operator scaling on lag: needs scripts/keda-build.sh (about an hour cold, cached); .ci/run runs it last.
      ...(asked('k8s-keda')
        ? [
            {
              extends: true as const,
              test: { name: 'k8s-keda', include: ['test/k8s/keda.test.ts'], globalSetup: ['test/k8s/global-setup.ts'] },
            },
          ]
        : []),
      ...(asked('k8s-down') ? [{ extends: true as const, test: { name: 'k8s-down', include: ['test/k8s-down/**/*.test.ts'] } }] : []),
    ],
  },
});
