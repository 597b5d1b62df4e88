import { expect } from 'vitest';

/**
 * Reads until `done` holds, and fails when that took `boundMs` or more: how a cache invalidated by
 * NOTIFY is read back. With `firstReadOnly` (PGlite, where the notification is handled during the
 * writing query) the first read is returned as it is, for the caller to check.
 */
export async function settled<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  options: { boundMs: number; firstReadOnly?: boolean },
): Promise<T> {
  const start = performance.now();
  let value = await read();
  if (options.firstReadOnly) return value;
  while (!done(value) && performance.now() - start < 10_000) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    value = await read();
  }
  expect(performance.now() - start).toBeLessThan(options.boundMs);
  return value;
}
