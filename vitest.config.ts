import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 180_000,
    // Integration tests share one broker and registry; run files one at a time so they do not starve each other on 2 cores.
    fileParallelism: false,
    reporters: ['default'],
  },
});
