/**
 * Text analysis off the event loop. `measureText` is synchronous CPU work (tens to hundreds of
 * milliseconds for 10,000 characters); on the service's main thread every other request, health
 * probes included, would wait for it. So texts are measured on worker threads, at most
 * TEXT_QUEUE_PER_THREAD waiting per thread (beyond: `studio_busy`, 503 with Retry-After), and each
 * measurement has a budget of TEXT_CPU_BUDGET_MS of the worker's CPU time: a text that takes
 * longer has its thread stopped and is answered `text_too_complex` (422), and a fresh thread takes
 * the queue. The analysis is linear in the text (docs/studio.md, "Bounded analysis"), so the budget
 * is a safety net that ordinary drafts are nowhere near; measuring CPU rather than wall-clock time
 * keeps a loaded machine from refusing them.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { StudioError } from './errors.ts';
import type { TextMeasurements } from './text-analysis.ts';

/** CPU time one text may take on its worker thread. The slowest 10,000-character texts take ~0.5 s. */
export const TEXT_CPU_BUDGET_MS = 2_000;
/** However little CPU the thread got, a text is stopped after this many budgets of wall-clock time. */
const WALL_CLOCK_BUDGETS = 10;
/** Texts waiting per thread before new ones are refused. */
export const TEXT_QUEUE_PER_THREAD = 8;
/** One thread on a two-core machine (the other core serves requests), at most two. */
const THREADS = Math.max(1, Math.min(2, os.availableParallelism() - 1));

/** A text sent to a worker thread. */
export interface TextJob {
  id: number;
  text: string;
}
/** What a worker thread sends back: ready after loading, then one answer per job. */
export type WorkerMessage =
  { ready: true } | { id: number; measurements: TextMeasurements } | { id: number; failure: string };

interface Pending extends TextJob {
  budgetMs: number;
  resolve: (m: TextMeasurements) => void;
  reject: (error: unknown) => void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  job: Pending | null;
}

const WORKER_URL = new URL('./text-worker.ts', import.meta.url);

export class TextPool {
  private readonly threads: Thread[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private readonly size: number;
  private readonly queuePerThread: number;

  constructor(size = THREADS, queuePerThread = TEXT_QUEUE_PER_THREAD) {
    this.size = size;
    this.queuePerThread = queuePerThread;
  }

  /** The text's measurements, from a worker thread; rejects with a StudioError when over budget or busy. */
  measure(text: string, budgetMs = TEXT_CPU_BUDGET_MS): Promise<TextMeasurements> {
    if (this.queue.length >= this.size * this.queuePerThread) {
      return Promise.reject(
        new StudioError(
          'studio_busy',
          'text scoring is at capacity: too many texts are waiting to be analysed; retry in a second',
          { retryAfterSeconds: 1 },
        ),
      );
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, text, budgetMs, resolve, reject });
      while (this.threads.length < this.size) this.threads.push(this.spawn());
      this.dispatch();
    });
  }

  /** Stops every thread (tests, shutdown); waiting texts are refused. */
  async close(): Promise<void> {
    const threads = this.threads.splice(0);
    for (const job of this.queue.splice(0)) job.reject(busy());
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  private spawn(): Thread {
    const worker = new Worker(WORKER_URL);
    const thread: Thread = { worker, ready: false, job: null };
    worker.on('message', (message: WorkerMessage) => {
      if ('ready' in message) {
        thread.ready = true;
      } else {
        const job = thread.job;
        if (!job || job.id !== message.id) return;
        thread.job = null;
        if ('measurements' in message) job.resolve(message.measurements);
        else job.reject(new Error(`text analysis failed: ${message.failure}`));
      }
      this.dispatch();
    });
    // A thread that dies (its own fault, or stopped over budget) is replaced; its text fails.
    worker.on('error', (error) => this.replace(thread, error));
    worker.on('exit', () => this.replace(thread, busy()));
    // Only a thread with work keeps the process alive (listeners ref it: unref after them).
    worker.unref();
    if (this.queue.length) worker.ref();
    return thread;
  }

  private replace(thread: Thread, reason: unknown): void {
    const at = this.threads.indexOf(thread);
    if (at < 0) return;
    const job = thread.job;
    thread.job = null;
    job?.reject(reason);
    this.threads.splice(at, 1);
    void thread.worker.terminate();
    // A thread that could not even load would fail again: the waiting texts fail with it.
    if (!thread.ready) for (const waiting of this.queue.splice(0)) waiting.reject(reason);
    else if (this.queue.length) this.threads.push(this.spawn());
  }

  private dispatch(): void {
    for (const thread of this.threads) {
      if (thread.ready && !thread.job && this.queue.length) {
        const job = this.queue.shift()!;
        thread.job = job;
        thread.worker.postMessage({ id: job.id, text: job.text } satisfies TextJob);
        this.watch(thread, job);
      }
      if (thread.job || (!thread.ready && this.queue.length)) thread.worker.ref();
      else thread.worker.unref();
    }
  }

  /** Stops the thread when the job has used its CPU budget (or ten budgets of wall-clock time). */
  private watch(thread: Thread, job: Pending): void {
    const started = performance.now();
    const base = thread.worker.cpuUsage().catch(() => null);
    const check = async () => {
      if (thread.job !== job) return;
      const [before, now] = await Promise.all([base, thread.worker.cpuUsage().catch(() => null)]);
      if (thread.job !== job) return;
      const used = before && now ? (now.user + now.system - before.user - before.system) / 1000 : 0;
      const wall = performance.now() - started;
      if (used < job.budgetMs && wall < job.budgetMs * WALL_CLOCK_BUDGETS) {
        setTimeout(() => void check(), Math.max(10, job.budgetMs - used)).unref();
        return;
      }
      this.replace(
        thread,
        new StudioError(
          'text_too_complex',
          `the text's analysis took more than its ${job.budgetMs.toLocaleString('en-US')} ms budget; shorten it or break up its long runs of characters`,
        ),
      );
    };
    setTimeout(() => void check(), job.budgetMs).unref();
  }
}

function busy(): StudioError {
  return new StudioError('studio_busy', 'text scoring is restarting; retry in a second', {
    retryAfterSeconds: 1,
  });
}

let shared: TextPool | undefined;

/** The process's pool, started on the first text. */
export function textPool(): TextPool {
  shared ??= new TextPool();
  return shared;
}
