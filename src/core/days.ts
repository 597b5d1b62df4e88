/**
 * UTC calendar days, the one definition every domain uses. A day travels as a 'YYYY-MM-DD'
 * string (as PostgreSQL `date` columns do) or, where arithmetic is hot, as an integer epoch day
 * (days since 1970-01-01). Caller-supplied dates are validated strictly: `Date.parse` accepts far
 * too much ("2030-02-30" rolls over to March, "March 7" parses).
 */

export const DAY_MS = 86_400_000;

const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME_RE =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/** Days in `month` (1-12) of `year`, proleptic Gregorian. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Epoch day of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** 'YYYY-MM-DD' to an epoch day, or null when it is not a real calendar date (e.g. 2024-02-30). */
export function parseDay(day: unknown): number | null {
  // Exactly /^\d{4}-\d{2}-\d{2}$/ read character by character: the engines parse every snapshot's
  // day on every score, where the regular expression and its match array were ~10% of the v2 engine's time.
  if (typeof day !== 'string' || day.length !== 10 || day.charCodeAt(4) !== 45 || day.charCodeAt(7) !== 45)
    return null;
  const y = digits(day, 0, 4);
  const mo = digits(day, 5, 7);
  const d = digits(day, 8, 10);
  // Year 0000 is refused: PostgreSQL has no year 0 (1 BC precedes AD 1), so it could never be stored or compared.
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return null;
  return daysFromCivil(y, mo, d);
}

/** The decimal number written by s[from..to), or -1 when a character is not an ASCII digit. */
function digits(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (!(c >= 0 && c <= 9)) return -1;
    n = n * 10 + c;
  }
  return n;
}

/** True for a real calendar date written YYYY-MM-DD, years 0001-9999 (rejects 2024-02-30, 2024-2-3, 0000-01-01). */
export function isCalendarDay(value: string): boolean {
  return parseDay(value) !== null;
}

/** Like parseDay, but throws a RangeError: for dates that were validated already, where a bad one is a bug. */
export function dayNumber(date: string): number {
  const n = parseDay(date);
  if (n === null) throw new RangeError(`invalid date ${date}, expected YYYY-MM-DD`);
  return n;
}

/** Like dayNumber, naming the parameter (asOf, from, to) in the error. */
export function requireDay(day: string, name: string): number {
  const n = parseDay(day);
  if (n === null) throw new RangeError(`${name} must be a YYYY-MM-DD date, got ${JSON.stringify(day)}`);
  return n;
}

/** Epoch day back to 'YYYY-MM-DD' (Hinnant's civil_from_days). */
export function formatDay(n: number): string {
  const z = n + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

// The last day formatted, as [start, end) in epoch ms: hot routes ask for "today" on every request,
// and toISOString is a measurable share of their CPU (profiles of GET /v1/score and the TACSI feeds).
let lastDayStart = NaN;
let lastDayEnd = NaN;
let lastDay = '';

/** The UTC calendar day of an instant. */
export function utcDay(instant: Date): string {
  const t = instant.getTime();
  if (t >= lastDayStart && t < lastDayEnd) return lastDay;
  const day = instant.toISOString().slice(0, 10); // a RangeError for an invalid Date, as before
  lastDayStart = t - (((t % DAY_MS) + DAY_MS) % DAY_MS);
  lastDayEnd = lastDayStart + DAY_MS;
  lastDay = day;
  return day;
}

/** `day` plus `days` days (negative to go back). Throws a RangeError for an invalid day. */
export function addDays(day: string, days: number): string {
  return formatDay(dayNumber(day) + days);
}

/** Whole days from `a` to `b` (positive when b is later). */
export function daysBetween(a: string, b: string): number {
  return dayNumber(b) - dayNumber(a);
}

/** Like Date.UTC, but years 0-99 stay years 0-99 (Date.UTC maps them to 1900-1999). */
function utcInstant(year: number, month: number, day: number, h = 0, min = 0, s = 0, ms = 0): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(h, min, s, ms);
  return date;
}

/** Midnight UTC at the start of a YYYY-MM-DD day plus `days` days. */
export function dayStart(day: string, days = 0): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(utcInstant(y, m, d).getTime() + days * DAY_MS);
}

export interface ParsedIso {
  /** The instant named (00:00 UTC for a date without a time). */
  instant: Date;
  /** True when only a calendar date was given. */
  dateOnly: boolean;
  /** True when the text named its zone (`Z` or an offset). */
  zoned: boolean;
}

/**
 * The one parsing rule for caller-supplied dates and instants. Parses `YYYY-MM-DD` or an ISO 8601 date-time (`YYYY-MM-DDTHH:MM[:SS[.fff]]` with `Z` or an
 * offset; without one the time is read as UTC). Returns null for anything else, including dates
 * that do not exist such as 2030-02-30.
 */
export function parseIsoInstant(value: string): ParsedIso | null {
  const text = value.trim();
  const dateOnly = DAY_RE.exec(text);
  const m = dateOnly ?? DATE_TIME_RE.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (dateOnly) return { instant: utcInstant(year, month, day), dateOnly: true, zoned: false };

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
  const instant = new Date(local.getTime() - offsetMinutes * 60_000);
  // An offset can carry 0001-01-01 into year 0 or 9999-12-31 into 10000: outside what a UTC day can name.
  const utcYear = instant.getUTCFullYear();
  if (utcYear < 1 || utcYear > 9999) return null;
  return { instant, dateOnly: false, zoned: zone !== undefined };
}
