import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * A webhook URL is https, or plain http to the loopback address: the service accepts the latter only
 * with ALLOW_LOOPBACK_FETCH (tests and the local sandbox's webhook inspector; docs/webhooks.md
 * "Trying webhooks locally"). The check keeps every other http URL out of the table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE webhooks DROP CONSTRAINT webhooks_url_check;
     ALTER TABLE webhooks ADD CONSTRAINT webhooks_url_check CHECK (
       (url LIKE 'https://%' OR url ~ '^http://(localhost|[a-z0-9.-]+\\.localhost|127(\\.[0-9]{1,3}){3}|\\[::1\\])(:[0-9]+)?/')
       AND length(url) <= 2048);`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `DELETE FROM webhooks WHERE url NOT LIKE 'https://%';
     ALTER TABLE webhooks DROP CONSTRAINT webhooks_url_check;
     ALTER TABLE webhooks ADD CONSTRAINT webhooks_url_check CHECK (url LIKE 'https://%' AND length(url) <= 2048);`,
  );
}
