/**
 * Calendar days as integers (days since 1970-01-01, UTC). Integer days make windows and
 * prefix-sum indexing trivial and avoid Date allocation in the hot path.
 */

const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since epoch for a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** Parse 'YYYY-MM-DD' to an epoch day, or null when it is not a real calendar date. */
export function parseDay(day: unknown): number | null {
  if (typeof day !== 'string') return null;
  const m = DAY_RE.exec(day);
  if (!m) return null;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return null;
  return daysFromCivil(y, mo, d);
}

/** Like parseDay but throws: for caller-supplied dates (asOf, from, to), where a bad value is a bug. */
export function requireDay(day: string, name: string): number {
  const n = parseDay(day);
  if (n === null) throw new RangeError(`${name} must be a YYYY-MM-DD date, got ${JSON.stringify(day)}`);
  return n;
}

/** Epoch day back to 'YYYY-MM-DD' (civil_from_days). */
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
