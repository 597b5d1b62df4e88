import { expect, it } from 'vitest';
import { progress } from '../../src/infra/wall-clock.ts';

it('reports how far a long step has got, never its last item (the step reports its own end)', () => {
  const lines: string[] = [];
  const shown = progress((line) => lines.push(line), 'metric history', 3, 'workspaces', 0);
  for (let n = 1; n <= 3; n++) shown.done(n);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^metric history: 1 of 3 workspaces \(\d+\.\d s\)$/);
  expect(lines[1]).toMatch(/^metric history: 2 of 3 workspaces /);
});

it('stays quiet between reports', () => {
  const lines: string[] = [];
  const shown = progress((line) => lines.push(line), 'scores', 1000, 'workspaces', 60_000);
  for (let n = 1; n <= 999; n++) shown.done(n);
  expect(lines).toEqual([]);
});
