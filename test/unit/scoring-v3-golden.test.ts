/**
 * Golden outputs of the v3 engine: scoreWorkspaceV3 and dailyScoreSeriesV3 over a fixed, varied set of
 * deterministic inputs (the reference population, the synthetic generator with gaps, accounts with
 * purchases, pods, view spikes, bad values, post-dated engagement and unreported views), every output
 * hashed (the daily series on every ninth case: each v3 day is scored on its own). A change of any output bit changes a digest: a refactor of the engine must leave them equal;
 * a deliberate formula change updates them (and is a new formula version if stored scores move).
 * The score digests were last updated when results gained `drivers` and recommendations from them
 * (docs/scoring.md, "Explanations"); every other field hashed the same before and after.
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
      population: [224, '340ca75f059588458ecfc2d648e4d91d69b251f1631889fd2a637a11d542a91f'],
      edge: [200, '6bd03173b319eb21db2d141a72a858019b8127e820883e51cfdcf67b489aec23'],
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
