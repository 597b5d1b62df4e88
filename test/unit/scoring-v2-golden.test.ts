/**
 * Golden outputs of the v2 engine: scoreWorkspaceV2 and dailyScoreSeriesV2 over a fixed, varied set of
 * deterministic inputs (the reference population, the synthetic generator with gaps, accounts with
 * purchases, pods, view spikes, bad values, post-dated engagement and unreported views), every output
 * hashed. A change of any output bit changes a digest: a refactor of the engine must leave them equal;
 * a deliberate formula change updates them (and is a new formula version if stored scores move).
 */
import { describe, expect, it } from 'vitest';
import { dailyScoreSeriesV2, scoreWorkspaceV2 } from '../../src/scoring/engine/v2/index.ts';
import { edgeCases, scoreDigest, seriesDigest, workspaces } from '../helpers/engine-golden.ts';

describe('formula v2: golden outputs', () => {
  const ws = workspaces();
  const edges = edgeCases();

  it('scoreWorkspaceV2 gives the stored outputs', () => {
    const population = scoreDigest(ws, scoreWorkspaceV2);
    const edge = scoreDigest(edges, scoreWorkspaceV2);
    expect({ population: [population.count, population.hex()], edge: [edge.count, edge.hex()] }).toEqual({
      population: [224, 'de033bbce0624e67cd4d7b946ebe5ec25e980c476caddd0f6c86f61a120d91a9'],
      edge: [200, '7c8279226b65261c512d5f30768acf358c185d994dce089dcb941d6723281668'],
    });
  });

  it('dailyScoreSeriesV2 gives the stored outputs', () => {
    const series = seriesDigest([...ws, ...edges], dailyScoreSeriesV2, { every: 3, spanDays: 150 });
    expect([series.count, series.hex()]).toEqual([
      72,
      'd5029c1c403502e27a59dab65620a364ef16e4642b0dac8085e373eac5a2676b',
    ]);
  });
});
