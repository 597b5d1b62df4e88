// Ids sort in the order they were made (docs: "newest first, ties by id" lists, the audit log's
// `at, id` order): within one millisecond a ULID counts up from the one before it.
import { describe, expect, it } from 'vitest';
import { newId, ulid } from '../../src/infra/ids.ts';

describe('ids', () => {
  it('made in the same millisecond, sort in the order they were made', () => {
    const at = Date.UTC(2026, 0, 1, 12);
    const ids = Array.from({ length: 1000 }, () => ulid(at));
    expect(new Set(ids).size).toBe(1000);
    expect([...ids].sort()).toEqual(ids);
    // Prefixed ids too, whatever the clock does between them.
    const many = Array.from({ length: 2000 }, () => newId('alog'));
    expect([...many].sort()).toEqual(many);
  });

  it('carry across digits and keep 26 Crockford base32 characters', () => {
    const at = Date.UTC(2026, 0, 1, 13);
    let previous = ulid(at);
    for (let i = 0; i < 5000; i++) {
      const next = ulid(at);
      expect(next).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(next > previous).toBe(true);
      previous = next;
    }
  });

  it('of a new millisecond start from fresh randomness', () => {
    const a = ulid(Date.UTC(2026, 0, 1, 14));
    const b = ulid(Date.UTC(2026, 0, 1, 14) + 1);
    expect(b.slice(0, 10) > a.slice(0, 10)).toBe(true);
    // Two runs of the same millisecond in different processes would not share a random part: here
    // the random parts of consecutive milliseconds are unrelated.
    expect(b.slice(10)).not.toBe(a.slice(10));
  });
});
