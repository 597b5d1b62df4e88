import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * Secrets at rest (src/infra/crypto): each sealed column gets the id of its key beside it. Webhook
 * secrets stored before this migration keep a NULL key id until the start-up step that follows the
 * migrations (sealPlaintext, which needs the key ring a migration does not have) seals them.
 * One-off audit deliveries get a secret of their own (the audit's, returned once by audit run).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE webhooks ADD COLUMN secret_key_id text;
    ALTER TABLE audits ADD COLUMN webhook_secret text;
    ALTER TABLE audits ADD COLUMN webhook_secret_key_id text;
    ALTER TABLE audits ADD CONSTRAINT audits_webhook_secret_ck
      CHECK ((webhook_secret IS NULL) = (webhook_secret_key_id IS NULL));
    ALTER TABLE webhook_deliveries ADD COLUMN secret text;
    ALTER TABLE webhook_deliveries ADD COLUMN secret_key_id text;
    ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_secret_ck
      CHECK ((secret IS NULL) = (secret_key_id IS NULL) AND (secret IS NULL OR webhook_id IS NULL));
    -- The start-up key check reads the key ids in use: only rows with a secret, through these.
    CREATE INDEX webhook_deliveries_secret_key_idx ON webhook_deliveries (secret_key_id) WHERE secret_key_id IS NOT NULL;
    CREATE INDEX audits_webhook_secret_key_idx ON audits (webhook_secret_key_id) WHERE webhook_secret_key_id IS NOT NULL;
    ALTER TABLE idempotency_keys ADD COLUMN response_sealed text;
    ALTER TABLE idempotency_keys ADD COLUMN response_key_id text;
    ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_sealed_ck
      CHECK ((response_sealed IS NULL) = (response_key_id IS NULL));
    -- Stored webhook-creation responses hold a secret in plaintext; they are replay records of at
    -- most 24 hours, so they are dropped rather than carried over.
    DELETE FROM idempotency_keys WHERE route = 'POST /v1/webhooks';
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_sealed_ck;
    ALTER TABLE idempotency_keys DROP COLUMN response_key_id;
    ALTER TABLE idempotency_keys DROP COLUMN response_sealed;
    DROP INDEX audits_webhook_secret_key_idx;
    DROP INDEX webhook_deliveries_secret_key_idx;
    ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_secret_ck;
    ALTER TABLE webhook_deliveries DROP COLUMN secret_key_id;
    ALTER TABLE webhook_deliveries DROP COLUMN secret;
    ALTER TABLE audits DROP CONSTRAINT audits_webhook_secret_ck;
    ALTER TABLE audits DROP COLUMN webhook_secret_key_id;
    ALTER TABLE audits DROP COLUMN webhook_secret;
    ALTER TABLE webhooks DROP COLUMN secret_key_id;
  `,
  );
}
