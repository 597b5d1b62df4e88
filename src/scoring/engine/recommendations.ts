/**
 * Recommendations from the weakest measured inputs. Each candidate changes one input of one
 * platform to its baseline, re-runs the same pillar formula and reports the difference as the
 * expected impact on the workspace pillar; priority 1 is the candidate that would move the
 * composite score most (pillar gain x pillar weight).
 */
import { COVERAGE_PENALTY, coverageFactor } from './aggregate.ts';
import { BASELINE_NET_SENTIMENT, benchmarkFor } from './benchmarks.ts';
import {
  PILLAR_WEIGHTS,
  SENTIMENT_PRIOR,
  impactFrom,
  impactParts,
  momentumFrom,
  momentumParts,
  netSentiment,
  presenceFrom,
  presenceParts,
  reachFrom,
  reachParts,
  sentimentFrom,
} from './pillars.ts';
import { round1 } from './math.ts';
import type { PlatformSignals } from './signals.ts';
import { PILLARS, PLATFORMS, type Pillar, type Platform, type Recommendation } from './types.ts';

export const DEFAULT_MAX_RECOMMENDATIONS = 5;

export interface MeasuredPlatform {
  signals: PlatformSignals;
  /** Weight of the platform in the workspace pillars. */
  weight: number;
}

interface Candidate {
  pillar: Pillar;
  platform: Platform;
  /** Expected gain on the workspace pillar, in points. */
  gain: number;
  action: string;
}

const fixed1 = (x: number) => round1(x).toFixed(1);
const percent = (x: number) => `${fixed1(100 * x)}%`;
const count = (x: number) => Math.round(x).toLocaleString('en-US');

function presenceCandidates(s: PlatformSignals, w: number, coverage: number, out: Candidate[]): void {
  const parts = presenceParts(s);
  const now = presenceFrom(parts);
  const scale = coverageFactor(coverage) * w;
  if (parts.cadence < 1 || parts.consistency < 1) {
    const target = benchmarkFor(s.platform, s.tier).postsPerWeek;
    const ideal = presenceFrom({ ...parts, consistency: 1, cadence: 1, regularity: 1 });
    const times = target === 1 ? 'once a week' : `at least ${target} times a week`;
    out.push({
      pillar: 'presence',
      platform: s.platform,
      gain: scale * (ideal - now),
      action:
        `Post on ${s.platform} ${times}: you posted in ${s.activeWeeks} of the last ${s.observedWeeks} ` +
        `weeks (${fixed1(parts.postsPerWeek)} posts a week)`,
    });
  }
  if (parts.completeness < 1) {
    out.push({
      pillar: 'presence',
      platform: s.platform,
      gain: scale * (presenceFrom({ ...parts, completeness: 1 }) - now),
      action:
        `Complete the ${s.platform} profile (bio, link, picture, contact details): ` +
        `it is ${Math.round(100 * parts.completeness)}% complete`,
    });
  }
}

function growthText(g: number): string {
  if (round1(100 * g) === 0) return 'your audience did not grow';
  return g > 0 ? `you grew ${percent(g)} a month` : `you lost ${percent(-g)} a month`;
}

function reachCandidates(s: PlatformSignals, w: number, out: Candidate[]): void {
  const bench = benchmarkFor(s.platform, s.tier);
  const parts = reachParts(s);
  const now = reachFrom(parts);
  if (parts.growth < 0.5) {
    out.push({
      pillar: 'reach',
      platform: s.platform,
      gain: w * (reachFrom({ ...parts, growth: 0.5 }) - now),
      action:
        `Grow ${s.platform} followers by at least ${percent(bench.monthlyGrowth)} a month, typical for ${s.tier} ` +
        `accounts (collaborations, cross-promotion, a call to follow): ${growthText(Math.expm1(parts.monthlyLogGrowth))}`,
    });
  }
  if (parts.visibility < 0.5) {
    const audience = Math.max(s.avgFollowers, 1);
    out.push({
      pillar: 'reach',
      platform: s.platform,
      gain: w * (reachFrom({ ...parts, visibility: 0.5 }) - now),
      action:
        `Raise ${s.platform} views to about ${count(bench.viewsPerFollowerDay * audience)} a day ` +
        `(${bench.viewsPerFollowerDay.toFixed(2)} per follower, typical for ${s.tier} accounts) with formats the ` +
        `platform shows beyond your followers: you averaged ${count(parts.viewsPerFollowerDay * audience)} a day`,
    });
  }
}

function impactCandidates(s: PlatformSignals, w: number, out: Candidate[]): void {
  const bench = benchmarkFor(s.platform, s.tier);
  const parts = impactParts(s);
  const perView = parts.perViewRate !== null;
  const target = perView
    ? bench.engagementPerView * s.views
    : bench.engagementPerFollowerDay * Math.max(s.avgFollowers, 1) * s.days;
  if (!(target > s.engagement)) return;
  const lifted = { ...s, engagement: target };
  const gain = w * (impactFrom(lifted, impactParts(lifted)) - impactFrom(s, parts));
  const detail = perView
    ? `${percent(parts.perViewRate ?? 0)} weighted engagement per view against ${percent(bench.engagementPerView)}`
    : `${fixed1(1000 * parts.perFollowerDayRate)} weighted engagements per 1,000 followers a day against ` +
      `${fixed1(1000 * bench.engagementPerFollowerDay)}`;
  out.push({
    pillar: 'impact',
    platform: s.platform,
    gain,
    action:
      `Lift engagement on ${s.platform}: ${detail} typical for ${s.tier} accounts; ask for saves and shares, ` +
      `which count three times a like`,
  });
}

function sentimentCandidates(s: PlatformSignals, w: number, out: Candidate[]): void {
  const n = s.positive + s.neutral + s.negative;
  if (n <= 0) return;
  const now = netSentiment(s);
  const target = (BASELINE_NET_SENTIMENT * n) / (n + SENTIMENT_PRIOR);
  if (!(target > now)) return;
  out.push({
    pillar: 'sentiment',
    platform: s.platform,
    gain: w * (sentimentFrom(target) - sentimentFrom(now)),
    action:
      `Answer complaints on ${s.platform} publicly and fix their cause: ${percent(s.negative / n)} of ` +
      `${count(n)} classified comments and mentions were negative, ${percent(s.positive / n)} positive`,
  });
}

function changeText(older: number, newer: number): string {
  if (!(older > 0)) return newer > 0 ? 'up from nothing' : 'flat at zero';
  const r = newer / older - 1;
  return `${r >= 0 ? 'up' : 'down'} ${percent(Math.abs(r))}`;
}

function momentumCandidates(s: PlatformSignals, w: number, out: Candidate[]): void {
  const parts = momentumParts(s);
  if (!parts.measurable) return;
  const now = momentumFrom(parts);
  if (!(now < 50)) return;
  const A = s.firstHalf;
  const B = s.secondHalf;
  const perDay = (t: typeof A, k: 'engagement' | 'views' | 'posts') => t[k] / t.days;
  out.push({
    pillar: 'momentum',
    platform: s.platform,
    gain: w * (50 - now),
    action:
      `Reverse the slowdown on ${s.platform}: in the second half of the window against the first, daily ` +
      `engagement is ${changeText(perDay(A, 'engagement'), perDay(B, 'engagement'))}, daily views ` +
      `${changeText(perDay(A, 'views'), perDay(B, 'views'))} and daily posts ${changeText(perDay(A, 'posts'), perDay(B, 'posts'))}` +
      `${parts.sentiment < 0 ? ' and sentiment fell' : ''}; bring posting back to its earlier level and repeat what worked then`,
  });
}

/**
 * Ranked recommendations. `missing` are requested platforms without data in the window,
 * `requestedCount` the number of requested platforms (for the coverage share).
 */
export function recommend(
  measured: readonly MeasuredPlatform[],
  missing: readonly Platform[],
  requestedCount: number,
  lookbackDays: number,
  max: number = DEFAULT_MAX_RECOMMENDATIONS,
): Recommendation[] {
  const out: Candidate[] = [];
  const coverage = requestedCount > 0 ? measured.length / requestedCount : 0;
  let meanPresence = 0; // weighted platform presence before the coverage factor
  for (const { signals, weight } of measured) {
    meanPresence += weight * presenceFrom(presenceParts(signals));
    presenceCandidates(signals, weight, coverage, out);
    reachCandidates(signals, weight, out);
    impactCandidates(signals, weight, out);
    sentimentCandidates(signals, weight, out);
    momentumCandidates(signals, weight, out);
  }
  if (requestedCount > 0) {
    // One more covered platform raises the coverage factor by PENALTY / n. With nothing measured
    // there is no presence to scale, so the gain is that of one platform at full presence.
    const presenceBase = measured.length > 0 ? meanPresence : 100 * coverageFactor(1 / requestedCount);
    const step = measured.length > 0 ? COVERAGE_PENALTY / requestedCount : 1;
    for (const platform of missing) {
      out.push({
        pillar: 'presence',
        platform,
        gain: presenceBase * step,
        action: `Connect or re-sync ${platform}: it has no data in the last ${lookbackDays} days`,
      });
    }
  }
  const score = (c: Candidate) => c.gain * PILLAR_WEIGHTS[c.pillar];
  return out
    .filter((c) => round1(c.gain) > 0)
    .sort(
      (a, b) =>
        score(b) - score(a) ||
        PILLARS.indexOf(a.pillar) - PILLARS.indexOf(b.pillar) ||
        PLATFORMS.indexOf(a.platform) - PLATFORMS.indexOf(b.platform) ||
        (a.action < b.action ? -1 : a.action > b.action ? 1 : 0),
    )
    .slice(0, Math.max(0, Math.floor(max)))
    .map((c, i) => ({
      priority: i + 1,
      pillar: c.pillar,
      action: c.action,
      expected_impact: `+${fixed1(c.gain)} points on ${c.pillar}`,
    }));
}
