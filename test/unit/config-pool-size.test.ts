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

describe('METRICS_PORT and METRICS_HOST', () => {
  it('default to a loopback listener, can be moved or turned off, and are validated', () => {
    expect(loadConfig({})).toMatchObject({ metricsPort: 9464, metricsHost: '127.0.0.1' });
    expect(loadConfig({ METRICS_PORT: 'off' }).metricsPort).toBeNull();
    expect(loadConfig({ METRICS_PORT: '9100', METRICS_HOST: '10.0.0.5' })).toMatchObject({
      metricsPort: 9100,
      metricsHost: '10.0.0.5',
    });
    expect(() => loadConfig({ METRICS_PORT: 'yes' })).toThrow(/METRICS_PORT must be an integer/);
  });
});
