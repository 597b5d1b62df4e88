// A second audit worker process for the audits scenario (bench/audits.ts): the real service on the
// bench database, running the audit job handler over the audit ids the bench sends over IPC, with the
// same number in flight as the bench process, so the two processes share one PostgreSQL database.
import { runAuditJob } from '../src/audits/jobs.ts';
import { loadConfig } from '../src/infra/config.ts';
import { createService } from '../src/service.ts';
import { inPool, timed } from './stats.ts';

export type AuditWorkerRequest = { type: 'run'; ids: string[]; concurrency: number } | { type: 'stop' };
export type AuditWorkerReply =
  | { type: 'ready' }
  | { type: 'done'; ms: number; outcomes: Record<string, number> }
  | { type: 'error'; error: string };

const env = process.env;
const now = new Date(env.BENCH_NOW!);
const service = await createService(
  {
    ...loadConfig({ LOG_LEVEL: 'warn', DATABASE_POOL_SIZE: env.DATABASE_POOL_SIZE }),
    databaseUrl: env.BENCH_DATABASE_URL!,
    runWorkers: false,
  },
  { now: () => now },
);
const send = (reply: AuditWorkerReply) => process.send!(reply);

process.on('message', (message: AuditWorkerRequest) => {
  if (message.type === 'stop') {
    void service.stop().finally(() => process.exit(0));
    return;
  }
  const outcomes: Record<string, number> = {};
  timed(() =>
    inPool(message.ids, message.concurrency, async (auditId) => {
      const outcome = await runAuditJob(service.ctx, { data: { auditId }, retryCount: 0 }).catch(
        (e: Error) => `error: ${e.message}`,
      );
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }),
  ).then(
    ({ ms }) => send({ type: 'done', ms, outcomes }),
    (error: Error) => send({ type: 'error', error: error.message }),
  );
});
send({ type: 'ready' });
