// GET /v1/tacsi/calendar and /v1/tacsi/notices: when the next cells of each licensed feed are
// published (from the job schedules, the one source of those instants), the lag policy, and the
// methodology notices announced ahead of their effective date. Nothing here reads a score or a cell.
import type { Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { addDays, utcDay } from '../core/days.ts';
import { HEADLINE } from './cohorts.ts';
import type { LicensedSector } from './entitlements.ts';
import { TACSI_SCHEDULES } from './jobs.ts';
import { CORRECTIONS_POLICY } from './methodology-feed.ts';
import type { CalendarFeedBody, NoticeBody } from './schemas.ts';

type Feed = 'weekly' | 'history' | 'pillars' | 'daily';

/** The runs of the schedules as (UTC hour, minute, ISO weekday or null for every day). */
function runOf(cron: string): { hour: number; minute: number; isoWeekday: number | null } {
  const [minute, hour, , , weekday] = cron.split(' ');
  return {
    minute: Number(minute),
    hour: Number(hour),
    isoWeekday: weekday === '*' ? null : Number(weekday) === 0 ? 7 : Number(weekday),
  };
}

/** The first run of `cron` strictly after `now` (UTC). */
export function nextRun(cron: string, now: Date): Date {
  const { hour, minute, isoWeekday } = runOf(cron);
  const day = utcDay(now);
  for (let i = 0; i <= 7; i++) {
    const d = addDays(day, i);
    const at = new Date(`${d}T${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00Z`);
    const weekday = ((at.getUTCDay() + 6) % 7) + 1;
    if (at.getTime() > now.getTime() && (isoWeekday === null || weekday === isoWeekday)) return at;
  }
  throw new RangeError(`no run of ${cron} within a week`);
}

export const LAG_POLICY = {
  daily:
    'a day is published at 03:00 UTC the next day, three hours after it closes; the two days before are retried then if missing',
  weekly:
    'an ISO week (Monday to Sunday) is published at 03:30 UTC on the Monday after it, three and a half hours after it closes; the week before is retried then if missing; the weekly, history and pillars feeds change together',
  revisions:
    'a published cell is never changed; nothing is published for a cohort below its minimum (50 brands; 250 for daily cells)',
  corrections: CORRECTIONS_POLICY,
} as const;

/** The next publication of every feed the key may read, per licensed sector. */
export function calendarFeed(now: Date, licensed: readonly LicensedSector[]): CalendarFeedBody {
  const daily = nextRun(TACSI_SCHEDULES.daily, now);
  const weekly = nextRun(TACSI_SCHEDULES.weekly, now);
  const entry = (feed: Feed): CalendarFeedBody['sectors'][number]['feeds'][number] => {
    const at = feed === 'daily' ? daily : weekly;
    return { feed, nextPublication: at.toISOString(), periodEnd: addDays(utcDay(at), -1) };
  };
  return {
    lagPolicy: { ...LAG_POLICY },
    sectors: licensed
      .map((s) => ({
        slug: s.slug,
        // tacsi-m2 publishes no daily headline.
        feeds: s.feeds.filter((f) => !(s.slug === HEADLINE && f === 'daily')).map(entry),
      }))
      .filter((s) => s.feeds.length > 0),
  };
}

/** Every methodology notice, latest effective date first; `upcoming` keeps those not yet in effect. */
export async function notices(db: Kysely<DB>, today: string, upcoming = false): Promise<NoticeBody[]> {
  let q = db
    .selectFrom('tacsi_notices')
    .selectAll()
    .orderBy('effective_on', 'desc')
    .orderBy('announced_at', 'desc')
    .orderBy('id');
  if (upcoming) q = q.where('effective_on', '>', today);
  const rows = await q.execute();
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    detail: r.detail,
    methodologyVersion: r.methodology_version,
    announcedAt: new Date(r.announced_at).toISOString(),
    effectiveOn: r.effective_on,
  }));
}
