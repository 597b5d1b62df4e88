import type { Kysely } from 'kysely';
import type { DB, EntitlementKind } from '../infra/db/types.ts';
import { newId } from '../infra/ids.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { isCalendarDay } from '../core/days.ts';
import { isUniqueViolation } from '../infra/db/errors.ts';
import { type Pillar, PILLARS } from '../core/catalog.ts';

export async function createSubscriber(db: Kysely<DB>, name: string, id?: string): Promise<string> {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200) throw invalidParameter('name', 'must be 1-200 characters');
  const subscriberId = id ?? newId('sub');
  await db.insertInto('tacsi_subscribers').values({ id: subscriberId, name: trimmed }).execute();
  return subscriberId;
}

export interface GrantInput {
  subscriberId: string;
  kind: EntitlementKind;
  sector?: string | null;
  pillar?: Pillar | null;
  exclusive?: boolean;
  validFrom?: string;
  validUntil?: string | null;
}

const KINDS: EntitlementKind[] = ['sector_feed', 'daily_addon', 'pillar_feed', 'full_database'];

export async function grantEntitlement(db: Kysely<DB>, input: GrantInput): Promise<string> {
  if (!KINDS.includes(input.kind))
    throw invalidParameter('kind', `unknown entitlement "${input.kind}" (use ${KINDS.join(', ')})`);
  if (input.kind === 'full_database' && input.sector)
    throw invalidParameter('sector', 'full_database covers every sector: give no sector');
  if (input.kind !== 'full_database' && !input.sector)
    throw invalidParameter('sector', `${input.kind} needs a sector`);
  if ((input.kind === 'pillar_feed') !== !!input.pillar)
    throw invalidParameter('pillar', 'a pillar is given with pillar_feed and only then');
  if (input.pillar && !PILLARS.includes(input.pillar))
    throw invalidParameter('pillar', `unknown pillar "${input.pillar}"`);
  if (input.exclusive && input.kind !== 'sector_feed')
    throw invalidParameter('exclusive', 'only a sector_feed can be exclusive');
  for (const [label, value] of [
    ['valid-from', input.validFrom],
    ['valid-until', input.validUntil],
  ] as const) {
    if (value && !isCalendarDay(value)) throw invalidParameter(label, 'must be a date YYYY-MM-DD');
  }
  const sub = await db
    .selectFrom('tacsi_subscribers')
    .select('id')
    .where('id', '=', input.subscriberId)
    .executeTakeFirst();
  if (!sub) throw new DomainError('not_found', `subscriber ${input.subscriberId} does not exist`);
  if (input.sector) {
    const sector = await db
      .selectFrom('sectors')
      .select('slug')
      .where('slug', '=', input.sector)
      .executeTakeFirst();
    if (!sector) throw new DomainError('not_found', `sector ${input.sector} does not exist`);
  }
  const id = newId('ent');
  try {
    await db
      .insertInto('tacsi_entitlements')
      .values({
        id,
        subscriber_id: input.subscriberId,
        kind: input.kind,
        sector_slug: input.sector ?? null,
        pillar: input.pillar ?? null,
        exclusive: input.exclusive ?? false,
        ...(input.validFrom ? { valid_from: input.validFrom } : {}),
        valid_until: input.validUntil ?? null,
      })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error, 'tacsi_entitlements_exclusive_uq'))
      throw new DomainError('conflict', `sector ${input.sector} is already held exclusively`);
    throw error;
  }
  return id;
}

export async function revokeEntitlement(db: Kysely<DB>, entitlementId: string, at: Date): Promise<void> {
  const result = await db
    .updateTable('tacsi_entitlements')
    .set({ revoked_at: at })
    .where('id', '=', entitlementId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!result.numUpdatedRows)
    throw new DomainError('not_found', `entitlement ${entitlementId} does not exist or is already revoked`);
}

export async function listEntitlements(db: Kysely<DB>, subscriberId?: string) {
  let q = db.selectFrom('tacsi_entitlements').selectAll().orderBy('created_at').orderBy('id');
  if (subscriberId) q = q.where('subscriber_id', '=', subscriberId);
  return q.execute();
}
