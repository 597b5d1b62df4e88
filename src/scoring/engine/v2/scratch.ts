/**
 * The working buffers of one scoring call: typed arrays grown on demand and reused by every platform
 * evaluation of the call (its jackknife replicates, every day of a daily series), so that scoring a
 * window allocates no per-day arrays. A call creates one (scoreWorkspaceV2, dailyScoreSeriesV2) and
 * passes it down; each buffer is read only within the step that filled it. Nothing is shared between
 * calls, so scoring is re-entrant.
 */
import { HALF_LIFE_DAYS } from './constants.ts';
import { baselineV2, type BaselineV2 } from './baselines.ts';
import type { Platform } from '../../../core/catalog.ts';

/** The baselines a call scores against: v2's own by default (formula v3 passes its re-based ones). */
export type BaselineFn = (platform: Platform, followers: number) => BaselineV2;

function growF64(buf: Float64Array, n: number): Float64Array {
  return buf.length >= n ? buf : new Float64Array(Math.max(n, 2 * buf.length));
}
function growI32(buf: Int32Array, n: number): Int32Array {
  return buf.length >= n ? buf : new Int32Array(Math.max(n, 2 * buf.length));
}

function recencyTable(n: number): Float64Array {
  const t = new Float64Array(n);
  for (let k = 0; k < n; k++) t[k] = Math.pow(2, -k / HALF_LIFE_DAYS);
  return t;
}
/** Read-only: the weights of windows up to a year (and a little more). */
const RECENCY = recencyTable(512);

export class Scratch {
  readonly baseline: BaselineFn;
  constructor(baseline: BaselineFn = baselineV2) {
    this.baseline = baseline;
  }
  #work: Float64Array = new Float64Array(0);
  #slopes: Float64Array = new Float64Array(0);
  #recency: Float64Array = new Float64Array(0);
  #idx: Int32Array = new Int32Array(0);
  #fIdx: Int32Array = new Int32Array(0);
  #reported: Int32Array = new Int32Array(0);
  #uncapped: Int32Array = new Int32Array(0);
  #changes: Float64Array = new Float64Array(0);
  #organicLog: Float64Array = new Float64Array(0);
  #followers: Float64Array = new Float64Array(0);
  #eng: Float64Array = new Float64Array(0);
  #approval: Float64Array = new Float64Array(0);
  #blockX: Float64Array = new Float64Array(0);
  #blockEng: Float64Array = new Float64Array(0);
  #blockXViews: Float64Array = new Float64Array(0);
  #blockViews: Float64Array = new Float64Array(0);

  /** Values to take a median of (medianInPlace reorders them). */
  work(n: number): Float64Array {
    return (this.#work = growF64(this.#work, n));
  }
  /** Theil-Sen's pairwise slopes. */
  slopes(n: number): Float64Array {
    return (this.#slopes = growF64(this.#slopes, n));
  }
  /**
   * Recency weight by distance in days from the window's end, Math.pow(2, -k / HALF_LIFE_DAYS):
   * the same expression as per day, so the same values, computed once per distance instead of once
   * per day and evaluation (a constant table covers every window up to RECENCY.length days).
   */
  recency(n: number): Float64Array {
    if (n <= RECENCY.length) return RECENCY;
    if (this.#recency.length < n) this.#recency = recencyTable(n);
    return this.#recency;
  }
  // Day-index lists of one evaluation.
  /** The observed days not left out. */
  idx(n: number): Int32Array {
    return (this.#idx = growI32(this.#idx, n));
  }
  /** The kept days with a usable follower count. */
  fIdx(n: number): Int32Array {
    return (this.#fIdx = growI32(this.#fIdx, n));
  }
  /** The kept days that report views. */
  reported(n: number): Int32Array {
    return (this.#reported = growI32(this.#reported, n));
  }
  /** The reported days whose views were not capped. */
  uncapped(n: number): Int32Array {
    return (this.#uncapped = growI32(this.#uncapped, n));
  }
  // Per-day values of one evaluation, indexed by window day (i - a), or by pair for `changes`.
  changes(n: number): Float64Array {
    return (this.#changes = growF64(this.#changes, n));
  }
  organicLog(n: number): Float64Array {
    return (this.#organicLog = growF64(this.#organicLog, n));
  }
  followers(n: number): Float64Array {
    return (this.#followers = growF64(this.#followers, n));
  }
  engagement(n: number): Float64Array {
    return (this.#eng = growF64(this.#eng, n));
  }
  approval(n: number): Float64Array {
    return (this.#approval = growF64(this.#approval, n));
  }
  /** Momentum's block means: [x, log approval] and [x, log views] pairs. */
  blocks(n: number): { xs: Float64Array; ye: Float64Array; xv: Float64Array; yv: Float64Array } {
    this.#blockX = growF64(this.#blockX, n);
    this.#blockEng = growF64(this.#blockEng, n);
    this.#blockXViews = growF64(this.#blockXViews, n);
    this.#blockViews = growF64(this.#blockViews, n);
    return { xs: this.#blockX, ye: this.#blockEng, xv: this.#blockXViews, yv: this.#blockViews };
  }
}
