import fs from 'node:fs';

export interface RssSnapshot {
  /** Current resident set size, MB. */
  currentMb: number;
  /** Highest sample since the last reset, MB. */
  peakMb: number;
  /** The kernel's high-water mark for the whole process life (VmHWM), MB; null off Linux. */
  highWaterMb: number | null;
  /** What made up the peak sample: V8 heap (total, used) and memory outside it (external, buffers), MB. */
  atPeak: { heapTotalMb: number; heapUsedMb: number; externalMb: number; arrayBuffersMb: number } | null;
}

const MB = 1024 * 1024;

/** Peak RSS of a process from /proc/<pid>/status (VmHWM), in MB; null when unavailable. */
export function highWaterMb(pid: number | 'self' = 'self'): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** Samples this process's RSS on a timer, so a short peak between two reads is still seen. */
export class RssSampler {
  #peak = 0;
  #atPeak: NodeJS.MemoryUsage | null = null;
  readonly #timer: NodeJS.Timeout;

  constructor(intervalMs = 100) {
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), intervalMs);
    this.#timer.unref();
  }

  #sample(): number {
    const rss = process.memoryUsage.rss();
    if (rss > this.#peak) {
      this.#peak = rss;
      // The full breakdown walks the heap spaces: only taken when a new peak is seen.
      this.#atPeak = process.memoryUsage();
    }
    return rss;
  }

  resetPeak(): void {
    this.#peak = 0;
    this.#atPeak = null;
    this.#sample();
  }

  snapshot(): RssSnapshot {
    const current = this.#sample();
    return {
      currentMb: Math.round(current / MB),
      peakMb: Math.round(this.#peak / MB),
      highWaterMb: highWaterMb(),
      atPeak: this.#atPeak && {
        heapTotalMb: Math.round(this.#atPeak.heapTotal / MB),
        heapUsedMb: Math.round(this.#atPeak.heapUsed / MB),
        externalMb: Math.round(this.#atPeak.external / MB),
        arrayBuffersMb: Math.round(this.#atPeak.arrayBuffers / MB),
      },
    };
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
