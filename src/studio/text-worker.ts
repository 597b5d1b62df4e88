/**
 * The thread that measures texts for the studio (text-pool.ts starts it). It loads the language
 * models before it says it is ready, so the first text's time budget is not spent on loading.
 */
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { measureText } from './text-analysis.ts';
import type { TextJob, WorkerMessage } from './text-pool.ts';

const port = parentPort;
if (!port) throw new Error('text-worker.ts runs as a worker thread (src/studio/text-pool.ts)');

// Analysis is background work: on Linux a priority applies to the calling thread only, so this
// thread yields the CPU to the one serving requests. Elsewhere it may not apply; nothing depends on it.
try {
  os.setPriority(Math.min(19, os.getPriority() + 10));
} catch {
  // Not permitted here: the thread keeps the process's priority.
}

// wink, the sentiment classifier and the language detector load on first use.
await measureText('Warm up the models. Is this English?');

port.on('message', (job: TextJob) => {
  measureText(job.text).then(
    (measurements) => port.postMessage({ id: job.id, measurements } satisfies WorkerMessage),
    (error: unknown) =>
      port.postMessage({
        id: job.id,
        failure: error instanceof Error ? error.message : String(error),
      } satisfies WorkerMessage),
  );
});
port.postMessage({ ready: true } satisfies WorkerMessage);
