import { describe, expect, it } from 'vitest';
import { conditionParams, evaluateCondition, type AlertState } from '../../src/alerts/rules.ts';
import { DomainError } from '../../src/core/errors.ts';

const pillars = (sentiment: number) => ({ presence: 50, reach: 50, impact: 50, sentiment, momentum: 50 });

function state(over: Partial<AlertState> & { score?: number; previous?: number | null } = {}): AlertState {
  return {
    today: '2030-01-10',
    daily: [],
    connections: [],
    change: {
      score: over.score ?? 50,
      previous_score: over.previous === undefined ? 52 : over.previous,
      grade: 'moderate',
      previous_grade: 'moderate',
      changed_at: '2030-01-10T06:00:00.000Z',
    },
    ...over,
  };
}

describe('alert conditions', () => {
  it('fills defaults, refuses a missing or foreign parameter by name', () => {
    expect(conditionParams('score_drop', { points: 5 })).toEqual({ points: 5, days: 7 });
    expect(conditionParams('pillar_change', { pillar: 'reach', points: 3 })).toEqual({
      pillar: 'reach',
      points: 3,
      days: 7,
      direction: 'down',
    });
    const missing = (() => {
      try {
        conditionParams('score_below', {});
      } catch (e) {
        return e as DomainError<'invalid_parameter'>;
      }
    })();
    expect(missing?.details?.parameter).toBe('threshold');
    expect(() => conditionParams('crisis', { days: 3 })).toThrow(/days does not apply/);
  });

  it('score_drop compares with the high of the look-back, and an open episode keeps the high it fell from', () => {
    const daily = [
      { day: '2030-01-02', score: 70, grade: 'strong' as const, pillars: pillars(80) },
      { day: '2030-01-05', score: 64, grade: 'strong' as const, pillars: pillars(70) },
      { day: '2030-01-10', score: 58, grade: 'moderate' as const, pillars: pillars(40) },
    ];
    const s = state({ score: 58, previous: 64, daily });
    expect(evaluateCondition('score_drop', { points: 10, days: 7 }, s, null)).toMatchObject({
      firing: false,
      drivers: { peak_score: 64, drop: 6 },
    });
    expect(evaluateCondition('score_drop', { points: 5, days: 7 }, s, null)!.firing).toBe(true);
    const wider = evaluateCondition('score_drop', { points: 10, days: 9 }, s, null)!;
    expect(wider).toMatchObject({ firing: true, drivers: { peak_score: 70, drop: 12 } });
    expect(wider.drivers.pillars![0]).toEqual({ pillar: 'sentiment', change: -40 });

    // A later score the same day replaced the stored one: the open episode's high still counts.
    const sameDay = state({ score: 59, previous: 58, daily: [] });
    const open = { drivers: { peak_score: 70, peak_day: '2030-01-02' }, triggeredDay: '2030-01-10' };
    expect(evaluateCondition('score_drop', { points: 10, days: 9 }, sameDay, open)!.firing).toBe(true);
    // Once that high leaves the look-back, the drop is measured without it.
    expect(evaluateCondition('score_drop', { points: 10, days: 5 }, sameDay, open)!.firing).toBe(false);
  });

  it('pillar_change by direction, grade_change against the grade it fell from', () => {
    const daily = [
      { day: '2030-01-04', score: 60, grade: 'strong' as const, pillars: pillars(70) },
      { day: '2030-01-10', score: 55, grade: 'moderate' as const, pillars: pillars(61) },
    ];
    const s = state({ daily });
    const down = evaluateCondition(
      'pillar_change',
      { pillar: 'sentiment', points: 8, days: 7, direction: 'down' },
      s,
      null,
    );
    expect(down).toMatchObject({ firing: true, drivers: { pillar_change: -9, reference_pillar_score: 70 } });
    const up = evaluateCondition(
      'pillar_change',
      { pillar: 'sentiment', points: 8, days: 7, direction: 'up' },
      s,
      null,
    );
    expect(up!.firing).toBe(false);

    const fell = state();
    fell.change = { ...fell.change!, grade: 'weak', previous_grade: 'strong' };
    expect(evaluateCondition('grade_change', { direction: 'down' }, fell, null)).toMatchObject({
      firing: true,
      drivers: { grade: 'weak', previous_grade: 'strong' },
    });
    // One step back up is not enough: it resolves at the grade it fell from.
    const partly = state();
    partly.change = { ...partly.change!, grade: 'moderate', previous_grade: 'weak' };
    const open = { drivers: { previous_grade: 'strong' as const }, triggeredDay: '2030-01-09' };
    expect(evaluateCondition('grade_change', { direction: 'down' }, partly, open)!.firing).toBe(true);
    partly.change = { ...partly.change!, grade: 'strong' };
    expect(evaluateCondition('grade_change', { direction: 'down' }, partly, open)!.firing).toBe(false);
  });

  it('says nothing where the state has nothing to say', () => {
    expect(evaluateCondition('crisis', {}, state(), null)).toBeNull();
    expect(
      evaluateCondition('score_below', { threshold: 40 }, { ...state(), change: null }, null),
    ).toBeNull();
    expect(
      evaluateCondition('score_drop', { points: 5, days: 7 }, state({ previous: null }), null),
    ).toBeNull();
  });
});
