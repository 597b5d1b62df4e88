/**
 * node scripts/sandbox-strata.ts
 *
 * Fits COMPOSITE_DIRECTION (src/sandbox/metrics.ts): the least-squares slopes of a sandbox brand's
 * formula v2 composite on the five standard normals behind its quality, over the sector brands
 * drawn twice without strata (1,050 brands), scored as of the sandbox's last day with the 90-day
 * window. Prints the slopes, their unit direction, R^2 and the residual sd.
 */
import { brandProfile, brandSnapshots } from '../src/sandbox/metrics.ts';
import { prng } from '../src/sandbox/random.ts';
import { HISTORY_DAYS, planSectorBrands } from '../src/sandbox/seed.ts';
import { drawFollowers, drawNormals } from '../src/scoring/engine/v2/reference-population.ts';
import { scoreWorkspaceV2 } from '../src/scoring/engine/v2/index.ts';

const LAST = '2026-06-30';
const { brands } = planSectorBrands();
const X: number[][] = [];
const y: number[] = [];
for (const draw of ['', ':redraw']) {
  for (const b of brands) {
    const id = `${b.id}${draw}`;
    // The same draws brandProfile makes: followers, then the quality normals.
    const rnd = prng(`${id}:quality`);
    drawFollowers(rnd);
    const z = drawNormals(rnd);
    const profile = brandProfile(id, b.sectorPhase);
    const snapshots = b.platforms.flatMap((p) => brandSnapshots(id, p, profile, LAST, HISTORY_DAYS));
    X.push([1, ...z]);
    y.push(scoreWorkspaceV2({ snapshots, platforms: b.platforms, asOf: LAST, lookbackDays: 90 }).score);
  }
}
// Normal equations, Gauss-Jordan.
const k = 6;
const A = Array.from({ length: k }, () => new Array<number>(k + 1).fill(0));
for (let i = 0; i < y.length; i++)
  for (let a = 0; a < k; a++) {
    for (let c = 0; c < k; c++) A[a]![c]! += X[i]![a]! * X[i]![c]!;
    A[a]![k]! += X[i]![a]! * y[i]!;
  }
for (let c = 0; c < k; c++) {
  const p = A[c]![c]!;
  for (let j = c; j <= k; j++) A[c]![j]! /= p;
  for (let r = 0; r < k; r++)
    if (r !== c) {
      const f = A[r]![c]!;
      for (let j = c; j <= k; j++) A[r]![j]! -= f * A[c]![j]!;
    }
}
const beta = A.map((row) => row[k]!);
const mean = y.reduce((s, v) => s + v, 0) / y.length;
const tss = y.reduce((s, v) => s + (v - mean) ** 2, 0);
const rss = y.reduce((s, v, i) => s + (v - X[i]!.reduce((t, x, j) => t + x * beta[j]!, 0)) ** 2, 0);
const slopes = beta.slice(1);
const norm = Math.hypot(...slopes);
console.log(`${y.length} brands: intercept ${beta[0]!.toFixed(2)}`);
console.log(
  `slopes (points per sd): ${slopes.map((b) => b.toFixed(2)).join(' / ')}, norm ${norm.toFixed(2)}`,
);
console.log(`direction: [${slopes.map((b) => (b / norm).toFixed(3)).join(', ')}]`);
console.log(`R^2 ${(1 - rss / tss).toFixed(3)}, residual sd ${Math.sqrt(rss / y.length).toFixed(2)}`);
