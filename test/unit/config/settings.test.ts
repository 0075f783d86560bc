/**
 * The settings table is the one source of every default and bound: docs/configuration.md's table is rendered from it, and the
 * loader applies exactly its defaults.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { SETTINGS, type SettingSpec } from '../../../src/config/settings.js';
import { withSettingsTable } from '../../../scripts/settings.js';

const doc = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
const BASE = { KAFKA_BROKERS: 'localhost:9092', SCHEMA_REGISTRY_URL: 'http://registry:8080/apis/ccompat/v7' } as const;

describe('settings table', () => {
  it('docs/configuration.md holds the rendered table (run `npm run docs:settings` after editing settings.ts)', () => {
    expect(withSettingsTable(doc)).toBe(doc);
  });

  it('every int bound is refused one past either end, naming the variable and the range', () => {
    for (const [name, spec] of Object.entries(SETTINGS) as [string, SettingSpec][]) {
      if (spec.kind !== 'int') continue;
      for (const value of [spec.min - 1, spec.max + 1]) {
        expect(() => loadConfig({ ...BASE, [name]: String(value) }), `${name}=${value}`).toThrow(
          `${name}: must be an integer from ${spec.min} to ${spec.max}`,
        );
      }
    }
  });

  it('the loader applies the defaults of the table', () => {
    const config = loadConfig({ ...BASE });
    expect(config.kafka.sessionTimeoutMs).toBe(SETTINGS.KAFKA_SESSION_TIMEOUT_MS.default);
    expect(config.registry.timeoutMs).toBe(SETTINGS.REGISTRY_TIMEOUT_MS.default);
    expect(config.pipeline.limits).toEqual({ maxRecordBytes: SETTINGS.MAX_RECORD_BYTES.default, maxDepth: SETTINGS.MAX_DEPTH.default });
    expect(config.pipeline.normalize.maxEntityPasses).toBe(SETTINGS.MAX_ENTITY_PASSES.default);
    expect(config.delivery).toBe(SETTINGS.DELIVERY.default);
    expect(config.topics.input).toBe(SETTINGS.INPUT_TOPIC.default);
    expect(config.httpPort).toBe(SETTINGS.METRICS_PORT.default);
    expect(config.logLevel).toBe(SETTINGS.LOG_LEVEL.default);
    expect(config.transactionalIdPrefix).toBe(SETTINGS.GROUP_ID.default);
  });
});
