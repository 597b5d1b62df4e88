import type { Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { newId } from '../infra/ids.ts';
import { invalidParameter } from '../core/errors.ts';
import { isCalendarDay, utcDay } from '../core/days.ts';

// Methodology notices (docs/tacsi.md): announced by the operator (`brandhealth tacsi notice`), listed to
// subscribers before they take effect.

export interface NoticeInput {
  title: string;
  detail: string;
  /** The day it takes effect (YYYY-MM-DD): after the day it is announced. */
  effectiveOn: string;
  methodologyVersion?: string | null;
}

/** Announces a methodology notice; it must take effect after today (UTC), so subscribers see it first. */
export async function announceNotice(db: Kysely<DB>, input: NoticeInput, now: Date): Promise<string> {
  const title = input.title.trim();
  const detail = input.detail.trim();
  if (!title || title.length > 200) throw invalidParameter('title', 'must be 1-200 characters');
  if (!detail || detail.length > 4000) throw invalidParameter('detail', 'must be 1-4000 characters');
  if (!isCalendarDay(input.effectiveOn)) throw invalidParameter('effective', 'must be a date YYYY-MM-DD');
  const today = utcDay(now);
  if (input.effectiveOn <= today)
    throw invalidParameter(
      'effective',
      `a notice must take effect after the day it is announced (${today}): got ${input.effectiveOn}`,
    );
  const id = newId('ntc');
  await db
    .insertInto('tacsi_notices')
    .values({
      id,
      title,
      detail,
      methodology_version: input.methodologyVersion ?? null,
      announced_at: now,
      effective_on: input.effectiveOn,
    })
    .execute();
  return id;
}
