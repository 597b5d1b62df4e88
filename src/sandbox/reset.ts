import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import { SANDBOX_ULID_PREFIX } from './ids.ts';

export interface SandboxResetResult {
  seeded_at: string | null;
  campaigns: number;
  webhooks: number;
  events: number;
  audits: number;
  idempotency_keys: number;
}

/**
 * Puts the sandbox back as `demo` left it: campaigns, webhooks (with their deliveries), events
 * and audits made since the first seed are deleted, so audit quotas are as seeded again; the
 * keys stay valid. Touches only sandbox workspaces and sandbox keys, in one transaction. Per-key
 * rate-limit windows live in the running service (or Redis) and end within a minute by themselves.
 */
export async function resetSandbox(ctx: AppContext): Promise<SandboxResetResult> {
  const sandbox = `ws\\_${SANDBOX_ULID_PREFIX}%`;
  return ctx.db.transaction().execute(async (trx) => {
    const state = await trx.selectFrom('sandbox_state').select('seeded_at').executeTakeFirst();
    const empty = { campaigns: 0, webhooks: 0, events: 0, audits: 0, idempotency_keys: 0 };
    if (!state) return { seeded_at: null, ...empty };
    const seededAt = new Date(state.seeded_at);
    const count = (r: { numAffectedRows?: bigint }) => Number(r.numAffectedRows ?? 0n);

    const campaigns = await sql`DELETE FROM campaigns WHERE workspace_id LIKE ${sandbox}`.execute(trx);
    const webhooks = await sql`DELETE FROM webhooks WHERE workspace_id LIKE ${sandbox}`.execute(trx);
    const events = await sql`DELETE FROM events WHERE workspace_id LIKE ${sandbox}`.execute(trx);
    // An audit's score_log rows go with it (the foreign key would only detach them).
    await sql`
      DELETE FROM score_log WHERE audit_id IN (
        SELECT id FROM audits WHERE workspace_id LIKE ${sandbox} AND created_at > ${seededAt})`.execute(trx);
    const audits =
      await sql`DELETE FROM audits WHERE workspace_id LIKE ${sandbox} AND created_at > ${seededAt}`.execute(
        trx,
      );
    const idempotency = await sql`
      DELETE FROM idempotency_keys WHERE owner_key_id IN (SELECT id FROM api_keys WHERE mode = 'test')`.execute(
      trx,
    );
    return {
      seeded_at: seededAt.toISOString(),
      campaigns: count(campaigns),
      webhooks: count(webhooks),
      events: count(events),
      audits: count(audits),
      idempotency_keys: count(idempotency),
    };
  });
}
