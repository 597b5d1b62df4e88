import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * An idempotency claim holds a lease while its request runs (renewed by the running process). A
 * claim whose lease lapsed belongs to a process that died mid-request: a retry with the same key
 * takes it over and runs the request (docs/adr/0148-idempotency-claims-are-leases.md). Claims
 * left by older versions have no lease and are taken over at once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(db, `ALTER TABLE idempotency_keys ADD COLUMN lease_until timestamptz;`);
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(db, `ALTER TABLE idempotency_keys DROP COLUMN lease_until;`);
}
