/**
 * Strict ISO 8601 parsing for caller-supplied dates. `Date.parse` accepts far too much
 * ("2030-02-30" rolls over to March, "March 7" parses), so values are matched and range-checked
 * here and only then turned into instants.
 */

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

const DAY_MS = 86_400_000;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export interface ParsedIso {
  /** The instant named (00:00 UTC for a date without a time). */
  instant: Date;
  /** True when only a calendar date was given. */
  dateOnly: boolean;
}

/**
 * Parses `YYYY-MM-DD` or an ISO 8601 date-time (`YYYY-MM-DDTHH:MM[:SS[.fff]]` with `Z` or an
 * offset; without one the time is read as UTC). Returns null for anything else, including dates
 * that do not exist such as 2030-02-30.
 */
export function parseIsoInstant(value: string): ParsedIso | null {
  const text = value.trim();
  const dateOnly = DATE_ONLY.exec(text);
  const m = dateOnly ?? DATE_TIME.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (dateOnly) return { instant: utcInstant(year, month, day), dateOnly: true };

  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const millis = m[7] === undefined ? 0 : Math.floor(Number(m[7]) * 1000);
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone && zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2)) : 0;
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (oh * 60 + om);
  }
  const local = utcInstant(year, month, day, hour, minute, second, millis);
  return { instant: new Date(local.getTime() - offsetMinutes * 60_000), dateOnly: false };
}

/** Like Date.UTC, but years 0-99 stay years 0-99 (Date.UTC maps them to 1900-1999). */
function utcInstant(year: number, month: number, day: number, h = 0, min = 0, s = 0, ms = 0): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(h, min, s, ms);
  return date;
}

/** The UTC calendar day of an instant, as YYYY-MM-DD. */
export function utcDay(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

/** Midnight UTC at the start of a YYYY-MM-DD day plus `days` days. */
export function dayStart(day: string, days = 0): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(utcInstant(y, m, d).getTime() + days * DAY_MS);
}
