import { DAY_MS, dayStart } from '../core/days.ts';
import { invalidParameter } from '../core/errors.ts';
/**
 * Narrative Arc phase planning and the campaign calendar. Pure: no database, no clock.
 *
 * A campaign starts at 00:00 UTC on its start date. Week w (1-based) covers days
 * [(w-1)*7, w*7) after that instant; a phase covers its weeks; the campaign is completed at
 * 00:00 UTC on day duration_weeks*7. See docs/campaigns.md.
 */

export const DEFAULT_PHASE_NAMES = ['Foundation', 'Build', 'Peak', 'Echo'] as const;
export const DEFAULT_DURATION_WEEKS = 12;
export const MAX_DURATION_WEEKS = 104;
export const MAX_PHASES = 12;
export const MAX_PHASE_NAME = 100;

export interface PhasePlan {
  name: string;
  weeks: number;
}

export interface LaidOutPhase extends PhasePlan {
  position: number;
  /** First week of the phase, 1-based, counted from the campaign start. */
  startWeek: number;
}

/**
 * The standard Arc over `durationWeeks`: every phase gets floor(d/4) weeks and the remainder
 * goes one week each to the first phases (10 -> 3,3,2,2; 13 -> 4,3,3,3). Under four weeks the
 * same rule leaves the last phases with zero weeks, and they are left out (3 -> Foundation,
 * Build, Peak with one week each), so the weeks always add up to the duration.
 */
export function defaultPhasePlan(durationWeeks: number): PhasePlan[] {
  const base = Math.floor(durationWeeks / DEFAULT_PHASE_NAMES.length);
  const extra = durationWeeks % DEFAULT_PHASE_NAMES.length;
  return DEFAULT_PHASE_NAMES.map((name, i) => ({ name, weeks: base + (i < extra ? 1 : 0) })).filter(
    (p) => p.weeks > 0,
  );
}

/** Checks caller-supplied phases; throws invalid_parameter (`phases`) with a message fit for the caller. */
export function customPhasePlan(phases: PhasePlan[], durationWeeks: number): PhasePlan[] {
  if (phases.length < 1 || phases.length > MAX_PHASES) {
    throw invalidParameter('phases', `phases must hold 1 to ${MAX_PHASES} phases, got ${phases.length}`);
  }
  const seen = new Set<string>();
  const out: PhasePlan[] = [];
  phases.forEach((phase, i) => {
    const name = phase.name.trim();
    if (name.length < 1 || name.length > MAX_PHASE_NAME) {
      throw invalidParameter(
        'phases',
        `phases[${i}].name must be 1-${MAX_PHASE_NAME} characters after trimming`,
      );
    }
    // Phase names are reported lower-cased (current_phase), so they must differ beyond case.
    const key = name.toLowerCase();
    if (seen.has(key))
      throw invalidParameter(
        'phases',
        `phases[${i}].name "${name}" is used twice (names are compared ignoring case)`,
      );
    seen.add(key);
    if (!Number.isInteger(phase.weeks) || phase.weeks < 1) {
      throw invalidParameter('phases', `phases[${i}].weeks must be a whole number of at least 1`);
    }
    out.push({ name, weeks: phase.weeks });
  });
  const total = out.reduce((sum, p) => sum + p.weeks, 0);
  if (total !== durationWeeks) {
    throw invalidParameter(
      'phases',
      `the phases' weeks add up to ${total} but duration_weeks is ${durationWeeks}; they must be equal`,
    );
  }
  return out;
}

export function layOut(plan: PhasePlan[]): LaidOutPhase[] {
  let next = 1;
  return plan.map((p, position) => {
    const phase = { ...p, position, startWeek: next };
    next += p.weeks;
    return phase;
  });
}

/** The absolute week numbers of a phase, e.g. [4, 5, 6]. */
export function weekNumbers(phase: { startWeek: number; weeks: number }): number[] {
  return Array.from({ length: phase.weeks }, (_, i) => phase.startWeek + i);
}

/**
 * Where the calendar puts a campaign at `at`: -1 before the start, the index of the running
 * phase, or `phases.length` once the last week is over.
 */
export function stageAt(startDate: string, phases: LaidOutPhase[], at: Date): number {
  const elapsedDays = Math.floor((at.getTime() - dayStart(startDate).getTime()) / DAY_MS);
  if (elapsedDays < 0) return -1;
  const week = Math.floor(elapsedDays / 7) + 1;
  const index = phases.findIndex((p) => week >= p.startWeek && week < p.startWeek + p.weeks);
  return index === -1 ? phases.length : index;
}

/** The instant the campaign enters `stage` (phase index, or phases.length for completion). */
export function stageStartsAt(startDate: string, phases: LaidOutPhase[], stage: number): Date {
  const phase = phases[stage];
  const week = phase ? phase.startWeek : phases.reduce((sum, p) => sum + p.weeks, 0) + 1;
  return dayStart(startDate, (week - 1) * 7);
}

/** Whole percent of a phase elapsed at `at`, clamped to 0-100. */
export function phaseProgress(startDate: string, phase: LaidOutPhase, at: Date): number {
  const start = dayStart(startDate, (phase.startWeek - 1) * 7).getTime();
  const length = phase.weeks * 7 * DAY_MS;
  const percent = Math.floor(((at.getTime() - start) / length) * 100);
  return Math.min(100, Math.max(0, percent));
}
