import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/infra/config.ts';

describe('DATABASE_POOL_SIZE', () => {
  it('defaults to 20 and reads a valid size', () => {
    expect(loadConfig({}).databasePoolSize).toBe(20);
    expect(loadConfig({ DATABASE_POOL_SIZE: ' 48 ' }).databasePoolSize).toBe(48);
  });

  it('refuses sizes that are not a positive integer up to 1000', () => {
    for (const bad of ['0', '1001', '-3', '2.5', 'many']) {
      expect(() => loadConfig({ DATABASE_POOL_SIZE: bad }), bad).toThrow(ConfigError);
    }
  });
});
