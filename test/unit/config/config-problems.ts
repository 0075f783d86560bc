/** The valid base and the problem lister the configuration tests share. */
import { expect } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/config.js';

/** The two required variables: every other setting at its default. */
export const BASE = { KAFKA_BROKERS: 'localhost:9092', SCHEMA_REGISTRY_URL: 'http://registry:8080/apis/ccompat/v7' } as const;

/** The problems loadConfig reports for `env` (on top of {@link BASE}); fails the test when it accepts it. */
export function problemsOf(env: Record<string, string | undefined>): readonly string[] {
  try {
    loadConfig({ ...BASE, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  expect.fail(`loadConfig accepted ${JSON.stringify(env)}`);
}
