import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * Sandbox keys are random per database and marked: `mode` 'test' keys are shown as `bh_test_...`
 * and only issued by `brandhealth demo` (one per sandbox role, by name). `sandbox_state` records
 * when the sandbox was first seeded, the point `brandhealth sandbox reset` goes back to.
 * Sandbox keys derived from the source before this migration are deleted: anyone could compute them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE api_keys ADD COLUMN mode text NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test'));
    DELETE FROM api_keys WHERE id LIKE 'key\\_01SANDBX%';
    CREATE UNIQUE INDEX api_keys_sandbox_name_uq ON api_keys (name) WHERE mode = 'test';
    CREATE TABLE sandbox_state (
      singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      seeded_at  timestamptz NOT NULL
    );
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    DROP TABLE sandbox_state;
    DROP INDEX api_keys_sandbox_name_uq;
    ALTER TABLE api_keys DROP COLUMN mode;
  `,
  );
}
