/**
 * Golden outputs of the v3 engine: scoreWorkspaceV3 and dailyScoreSeriesV3 over a fixed, varied set of
 * deterministic inputs (the reference population, the synthetic generator with gaps, accounts with
 * purchases, pods, view spikes, bad values, post-dated engagement and unreported views), every output
 * hashed (the daily series on every ninth case: each v3 day is scored on its own). A change of any output bit changes a digest: a refactor of the engine must leave them equal;
 * a deliberate formula change updates them (and is a new formula version if stored scores move).
 * The score digests were last updated when results gained `drivers` and recommendations from them
 * (docs/scoring.md, "Explanations"), and when recommendations named platforms as the drivers do
 * ("on TikTok", not "on tiktok"; with the keys put back the digests were the earlier ones); every other
 * field hashed the same before and after.
 */
import { describe, expect, it } from 'vitest';
import { dailyScoreSeriesV3, scoreWorkspaceV3 } from '../../src/scoring/engine/v3/index.ts';
import { edgeCases, scoreDigest, seriesDigest, workspaces } from '../helpers/engine-golden.ts';

describe('formula v3: golden outputs', () => {
  const ws = workspaces();
  const edges = edgeCases();

  it('scoreWorkspaceV3 gives the stored outputs', () => {
    const population = scoreDigest(ws, scoreWorkspaceV3);
    const edge = scoreDigest(edges, scoreWorkspaceV3);
    expect({ population: [population.count, population.hex()], edge: [edge.count, edge.hex()] }).toEqual({
      population: [224, 'd28f27e2c183ec03bb556fe5f21e12a453d889296adb77f8c3c5beb399451563'],
      edge: [200, 'ae49334590e1417b23026c8279814be01eccadd961773bba87eb753fa069d9c0'],
    });
  });

  it('dailyScoreSeriesV3 gives the stored outputs', () => {
    const series = seriesDigest([...ws, ...edges], dailyScoreSeriesV3, { every: 9, spanDays: 30 });
    expect([series.count, series.hex()]).toEqual([
      24,
      'd14d2f7a556ea8eee0f47fa321763d9bb541c8b0425e79e6ed052bde06c67039',
    ]);
  });
});
