/**
 * The medians of a window sliding one day at a time over a DaySeries (dailyScoreSeriesV2): each step
 * adds the day entering and removes the day leaving, instead of re-reading and re-sorting the whole
 * window for every day. evaluatePlatform gives the same result with or without them (tested).
 */
import type { DaySeries } from './day-series.ts';
import type { Scratch } from './scratch.ts';
import { SortedValues } from './stats.ts';

/** Medians of one window that evaluatePlatform would otherwise compute from scratch. */
export interface WindowHints {
  /** Median (NaN when none) of the views of observed days that report views. */
  views: number;
  /** Median of the (valence-adjusted) engagement and of the approval of observed days. */
  engagement: number;
  approval: number;
  /** Median and MAD of the daily log follower changes between consecutive usable days (0 when none). */
  changeMedian: number;
  changeMad: number;
}

export class WindowMedians {
  readonly #d: DaySeries;
  readonly #scratch: Scratch;
  readonly #views = new SortedValues();
  readonly #engagement = new SortedValues();
  readonly #approval = new SortedValues();
  readonly #changes = new SortedValues();
  /** Index of the previous usable follower day of each index (-1 when none). */
  readonly #prevUsable: Int32Array;
  readonly #nextUsable: Int32Array;
  #a = 0;
  #b = -1;

  constructor(d: DaySeries, scratch: Scratch) {
    this.#d = d;
    this.#scratch = scratch;
    this.#prevUsable = new Int32Array(d.length).fill(-1);
    this.#nextUsable = new Int32Array(d.length).fill(-1);
    let last = -1;
    for (let i = 0; i < d.length; i++) {
      this.#prevUsable[i] = last;
      if (this.#usable(i)) {
        if (last >= 0) this.#nextUsable[last] = i;
        last = i;
      }
    }
  }

  #usable(i: number): boolean {
    return this.#d.observed[i] === 1 && Number.isFinite(this.#d.followers[i]!);
  }

  /** The same expression as evaluatePlatform's, so the values are identical. */
  #change(p: number, q: number): number {
    const lf = this.#d.logFollowers;
    return (lf[q]! - lf[p]!) / (q - p);
  }

  #enter(i: number): void {
    const d = this.#d;
    if (!d.observed[i]) return;
    if (d.views[i]! > 0) this.#views.add(d.views[i]!);
    this.#engagement.add(d.engagement[i]!);
    this.#approval.add(d.approval[i]!);
    const p = this.#prevUsable[i]!;
    if (this.#usable(i) && p >= this.#a) this.#changes.add(this.#change(p, i));
  }

  #leave(i: number): void {
    const d = this.#d;
    if (!d.observed[i]) return;
    if (d.views[i]! > 0) this.#views.remove(d.views[i]!);
    this.#engagement.remove(d.engagement[i]!);
    this.#approval.remove(d.approval[i]!);
    const q = this.#nextUsable[i]!;
    if (this.#usable(i) && q >= 0 && q <= this.#b) this.#changes.remove(this.#change(i, q));
  }

  /** Moves the window to day indices [a, b] (forward only) and returns its medians. */
  moveTo(a: number, b: number): WindowHints {
    if (a < this.#a || b < this.#b) throw new RangeError('WindowMedians only moves forward');
    // Extend the right edge first, then drop the left: a pair (p, q) is in the window iff a <= p and q <= b.
    while (this.#b < b) {
      this.#b++;
      this.#enter(this.#b);
    }
    while (this.#a < a) {
      this.#leave(this.#a);
      this.#a++;
    }
    const med = this.#changes.size ? this.#changes.median() : 0;
    return {
      views: this.#views.median(),
      engagement: this.#engagement.median(),
      approval: this.#approval.median(),
      changeMedian: med,
      changeMad: this.#changes.size ? this.#changes.mad(this.#scratch, med) : 0,
    };
  }
}
