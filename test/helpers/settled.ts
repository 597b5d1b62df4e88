/**
 * Reads until `done` holds or 10 s have passed, and returns the last value for the caller to check:
 * how a cache invalidated by NOTIFY is read back. The caches under test keep an answer for a minute,
 * so a changed answer within the 10 s can only come from the notification. How fast a notification
 * crosses instances is a latency, not a behaviour: no wall-clock bound here. With `firstReadOnly`
 * (PGlite, where the notification is handled during the writing query) the first read is returned as it
 * is.
 */
export async function settled<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  options: { firstReadOnly?: boolean } = {},
): Promise<T> {
  const start = performance.now();
  let value = await read();
  if (options.firstReadOnly) return value;
  while (!done(value) && performance.now() - start < 10_000) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    value = await read();
  }
  return value;
}
