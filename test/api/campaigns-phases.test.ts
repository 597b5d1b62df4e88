import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  customPhasePlan,
  defaultPhasePlan,
  layOut,
  phaseProgress,
  stageAt,
  stageStartsAt,
  weekNumbers,
} from '../../src/campaigns/phases.ts';
import { DomainError } from '../../src/core/errors.ts';
import { parseIsoInstant } from '../../src/core/days.ts';

/** The phase planner and calendar behind POST /v1/campaigns and the lifecycle job (pure). */

const DAY = 86_400_000;
const duration = fc.integer({ min: 1, max: 104 });

describe('default Arc split', () => {
  it('matches the spec sample and the documented rule', () => {
    const weeks = (d: number) => defaultPhasePlan(d).map((p) => p.weeks);
    expect(weeks(10)).toEqual([3, 3, 2, 2]); // the spec's 10-week sample
    expect(weeks(12)).toEqual([3, 3, 3, 3]);
    expect(weeks(13)).toEqual([4, 3, 3, 3]);
    expect(weeks(1)).toEqual([1]);
    expect(weeks(2)).toEqual([1, 1]);
    expect(weeks(3)).toEqual([1, 1, 1]);
    expect(weeks(104)).toEqual([26, 26, 26, 26]);
  });

  it('always adds up to the duration, keeps the Arc order and differs by at most a week', () => {
    fc.assert(
      fc.property(duration, (d) => {
        const plan = defaultPhasePlan(d);
        expect(plan.reduce((s, p) => s + p.weeks, 0)).toBe(d);
        expect(plan.map((p) => p.name)).toEqual(
          ['Foundation', 'Build', 'Peak', 'Echo'].slice(0, Math.min(4, d)),
        );
        expect(plan.every((p) => p.weeks >= 1)).toBe(true);
        const sizes = plan.map((p) => p.weeks);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        // Longer phases come first: the remainder goes to the early phases.
        expect([...sizes].sort((a, b) => b - a)).toEqual(sizes);
        // Laid out, the phases cover weeks 1..d exactly once, in order.
        expect(layOut(plan).flatMap(weekNumbers)).toEqual(Array.from({ length: d }, (_, i) => i + 1));
      }),
    );
  });
});

describe('custom phases', () => {
  const phases = fc.uniqueArray(
    fc.record({
      name: fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,20}[A-Za-z]$/),
      weeks: fc.integer({ min: 1, max: 8 }),
    }),
    { minLength: 1, maxLength: 12, selector: (p) => p.name.toLowerCase() },
  );

  it('accepts any 1-12 uniquely named phases whose weeks equal the duration, and nothing else', () => {
    fc.assert(
      fc.property(phases, fc.integer({ min: -3, max: 3 }), (list, skew) => {
        const total = list.reduce((s, p) => s + p.weeks, 0);
        if (skew === 0) {
          expect(customPhasePlan(list, total)).toEqual(list);
        } else {
          expect(() => customPhasePlan(list, total + skew)).toThrow(DomainError);
        }
      }),
    );
  });

  it('rejects duplicate names ignoring case, blank names and too many phases', () => {
    expect(() =>
      customPhasePlan(
        [
          { name: 'Peak', weeks: 1 },
          { name: 'PEAK', weeks: 1 },
        ],
        2,
      ),
    ).toThrow(/used twice/);
    expect(() => customPhasePlan([{ name: ' ', weeks: 1 }], 1)).toThrow(/1-100 characters/);
    const thirteen = Array.from({ length: 13 }, (_, i) => ({ name: `P${i}`, weeks: 1 }));
    expect(() => customPhasePlan(thirteen, 13)).toThrow(/1 to 12 phases/);
  });
});

describe('campaign calendar', () => {
  const start = fc
    .date({ min: new Date('2025-01-01'), max: new Date('2040-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10));

  it('places every instant in the stage whose boundaries enclose it', () => {
    fc.assert(
      fc.property(start, duration, fc.integer({ min: -30 * DAY, max: 800 * DAY }), (day, d, offset) => {
        const phases = layOut(defaultPhasePlan(d));
        const begin = Date.parse(`${day}T00:00:00Z`);
        const at = new Date(begin + offset);
        const stage = stageAt(day, phases, at);
        if (offset < 0) {
          expect(stage).toBe(-1);
          return;
        }
        expect(stageStartsAt(day, phases, stage).getTime()).toBeLessThanOrEqual(at.getTime());
        if (stage < phases.length) {
          expect(stageStartsAt(day, phases, stage + 1).getTime()).toBeGreaterThan(at.getTime());
          const progress = phaseProgress(day, phases[stage]!, at);
          expect(progress).toBeGreaterThanOrEqual(0);
          expect(progress).toBeLessThan(100);
        } else {
          expect(at.getTime()).toBeGreaterThanOrEqual(begin + d * 7 * DAY);
        }
      }),
    );
  });

  it('starts at 00:00 UTC on the start date and completes after the last week', () => {
    const phases = layOut(defaultPhasePlan(10));
    expect(stageAt('2030-01-08', phases, new Date('2030-01-07T23:59:59.999Z'))).toBe(-1);
    expect(stageAt('2030-01-08', phases, new Date('2030-01-08T00:00:00Z'))).toBe(0);
    expect(stageAt('2030-01-08', phases, new Date('2030-01-29T00:00:00Z'))).toBe(1);
    expect(stageAt('2030-01-08', phases, new Date('2030-03-18T23:59:59Z'))).toBe(3);
    expect(stageAt('2030-01-08', phases, new Date('2030-03-19T00:00:00Z'))).toBe(4);
    expect(stageStartsAt('2030-01-08', phases, 4).toISOString()).toBe('2030-03-19T00:00:00.000Z');
  });
});

describe('ISO 8601 parsing', () => {
  it('accepts dates and date-times and rejects impossible or loose values', () => {
    expect(parseIsoInstant('2030-02-28')?.instant.toISOString()).toBe('2030-02-28T00:00:00.000Z');
    expect(parseIsoInstant('2032-02-29')?.dateOnly).toBe(true);
    expect(parseIsoInstant('2030-01-16T01:30:00+01:00')?.instant.toISOString()).toBe(
      '2030-01-16T00:30:00.000Z',
    );
    expect(parseIsoInstant('2030-01-16T01:30:00.25-0230')?.instant.toISOString()).toBe(
      '2030-01-16T04:00:00.250Z',
    );
    expect(parseIsoInstant('2030-01-16T01:30')?.instant.toISOString()).toBe('2030-01-16T01:30:00.000Z');
    expect(parseIsoInstant('0050-03-01')?.instant.getUTCFullYear()).toBe(50);
    for (const bad of [
      '2030-02-29',
      '2030-13-01',
      '2030-00-10',
      '2030-01-32',
      '2030-01-16T24:00:00Z',
      '2030-01-16T10:60Z',
      '16/01/2030',
      'March 7',
      '2030-01-16T10:00:00+25:00',
      '',
    ]) {
      expect(parseIsoInstant(bad), bad).toBeNull();
    }
  });

  it('round-trips every instant it is given in its own ISO form', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }),
        (d) => {
          expect(parseIsoInstant(d.toISOString())?.instant.getTime()).toBe(d.getTime());
        },
      ),
    );
  });
});
