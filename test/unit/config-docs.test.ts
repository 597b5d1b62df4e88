import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_OPTIONS, ConfigError, configTable, loadConfig } from '../../src/infra/config.ts';
import { README_TABLE, withConfigTable } from '../../scripts/config-table-markers.ts';

describe('configuration has one definition', () => {
  it('the README table is exactly the one generated from CONFIG_OPTIONS (run `npm run config-table`)', () => {
    const readme = fs.readFileSync(README_TABLE.path, 'utf8');
    expect(readme).toBe(withConfigTable(readme, configTable()));
  });

  it('names each variable and Config key once, with a meaning and a default', () => {
    const envs = CONFIG_OPTIONS.map((o) => o.env);
    // A grouped key (sync) is filled by several variables, each naming its own field.
    const keys = CONFIG_OPTIONS.map((o) => (o.field ? `${o.key}.${o.field}` : o.key));
    expect(new Set(envs).size).toBe(envs.length);
    expect(new Set(keys).size).toBe(keys.length);
    for (const o of CONFIG_OPTIONS) {
      expect(o.meaning.length, o.env).toBeGreaterThan(0);
      expect(o.default.length, o.env).toBeGreaterThan(0);
    }
    // Every key loadConfig returns comes from an option.
    expect(Object.keys(loadConfig({})).sort()).toEqual([...new Set(CONFIG_OPTIONS.map((o) => o.key))].sort());
    for (const o of CONFIG_OPTIONS.filter((o) => o.field)) {
      expect(Object.keys(loadConfig({})[o.key] as object), o.env).toContain(o.field);
    }
  });

  it('validates through the same definition: out-of-range integers are refused with the documented range', () => {
    for (const o of CONFIG_OPTIONS.filter((o) => o.range && /^\d+-\d+$/.test(o.range))) {
      const max = Number(o.range!.split('-')[1]);
      expect(() => loadConfig({ [o.env]: String(max + 1) }), o.env).toThrow(ConfigError);
      expect(() => loadConfig({ [o.env]: String(max + 1) }), o.env).toThrow(o.range!.replace('-', ' and '));
    }
  });
});
