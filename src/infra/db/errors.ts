/**
 * Whether `error` is PostgreSQL's unique_violation (SQLSTATE 23505), optionally of one named
 * constraint (PGlite does not always report the constraint's name: then any unique violation matches).
 */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string } | null;
  return (
    e?.code === '23505' &&
    (constraint === undefined || e.constraint === undefined || e.constraint === constraint)
  );
}
