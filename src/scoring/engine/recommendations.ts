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
import type { Recommendation } from './types.ts';
import { type Pillar, PILLARS, type Platform, PLATFORMS } from '../../core/catalog.ts';

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

// Every recommendation quotes the evidence that its threshold is not met. Rounding must not
// undo that ("at least 3 a week: 3.0 a week" for 2.96), so the measured value is printed
// rounded down and the threshold rounded up: measured < threshold stays visibly true.
const EPS = 1e-9;
const down1 = (x: number) => (Math.floor(x * 10 + EPS) / 10).toFixed(1);
const up1 = (x: number) => (Math.ceil(x * 10 - EPS) / 10).toFixed(1);
const percentDown = (x: number) => `${down1(100 * x)}%`;
const percentUp = (x: number) => `${up1(100 * x)}%`;
const countDown = (x: number) => Math.floor(x + EPS).toLocaleString('en-US');
const countUp = (x: number) => Math.ceil(x - EPS).toLocaleString('en-US');

function presenceCandidates(s: PlatformSignals, w: number, coverage: number, out: Candidate[]): void {
  const parts = presenceParts(s);
  const now = presenceFrom(parts);
  const scale = coverageFactor(coverage) * w;
  const ideal = presenceFrom({ ...parts, consistency: 1, cadence: 1, regularity: 1 });
  const weeks = `you posted in ${s.activeWeeks} of the last ${s.observedWeeks} weeks`;
  if (parts.cadence < 1) {
    // Too few posts a week on average: the target is the tier's cadence.
    const target = benchmarkFor(s.platform, s.tier).postsPerWeek;
    const times = target === 1 ? 'once a week' : `at least ${target} times a week`;
    out.push({
      pillar: 'presence',
      platform: s.platform,
      gain: scale * (ideal - now),
      action: `Post on ${s.platform} ${times}: ${weeks} (${down1(parts.postsPerWeek)} posts a week)`,
    });
  } else if (parts.consistency < 1) {
    // Enough posts on average, but some weeks had none: the target is every week.
    out.push({
      pillar: 'presence',
      platform: s.platform,
      gain: scale * (ideal - now),
      action:
        `Post on ${s.platform} every week, spreading the posts you already make: ${weeks} ` +
        `(${down1(parts.postsPerWeek)} posts a week on average)`,
    });
  }
  if (parts.completeness < 1) {
    out.push({
      pillar: 'presence',
      platform: s.platform,
      gain: scale * (presenceFrom({ ...parts, completeness: 1 }) - now),
      action:
        `Complete the ${s.platform} profile (bio, link, picture, contact details): ` +
        `it is ${Math.floor(100 * parts.completeness + EPS)}% complete`,
    });
  }
}

function growthText(g: number): string {
  if (g >= 0)
    return down1(100 * g) === '0.0' ? 'your audience did not grow' : `you grew ${percentDown(g)} a month`;
  return `you lost ${percentUp(-g)} a month`;
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
        `Grow ${s.platform} followers by at least ${percentUp(bench.monthlyGrowth)} a month, typical for ${s.tier} ` +
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
        `Raise ${s.platform} views to about ${countUp(bench.viewsPerFollowerDay * audience)} a day ` +
        `(${bench.viewsPerFollowerDay.toFixed(2)} per follower, typical for ${s.tier} accounts) with formats the ` +
        `platform shows beyond your followers: you averaged ${countDown(parts.viewsPerFollowerDay * audience)} a day`,
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
    ? `${percentDown(parts.perViewRate ?? 0)} weighted engagement per view against ${percentUp(bench.engagementPerView)}`
    : `${down1(1000 * parts.perFollowerDayRate)} weighted engagements per 1,000 followers a day against ` +
      `${up1(1000 * bench.engagementPerFollowerDay)}`;
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
  // target > now exactly when the net share (positive - negative) / n is below the baseline.
  const net = `net sentiment ${down1(100 * ((s.positive - s.negative) / n))}% against ${up1(100 * BASELINE_NET_SENTIMENT)}% typical`;
  out.push({
    pillar: 'sentiment',
    platform: s.platform,
    gain: w * (sentimentFrom(target) - sentimentFrom(now)),
    action:
      s.negative > 0
        ? `Answer complaints on ${s.platform} publicly and fix their cause: ${percent(s.negative / n)} of ` +
          `${count(n)} classified comments and mentions were negative, ${percent(s.positive / n)} positive (${net})`
        : // Nothing to answer: sentiment is low because few reactions are positive.
          `Give your ${s.platform} audience reasons to speak well of you (answer questions, share reviews, thank ` +
          `fans): ${percent(s.positive / n)} of ${count(n)} classified comments and mentions were positive, none negative (${net})`,
  });
}

function momentumCandidates(s: PlatformSignals, w: number, out: Candidate[]): void {
  const parts = momentumParts(s);
  if (!parts.measurable) return;
  const now = momentumFrom(parts);
  if (!(now < 50)) return;
  // Momentum is below 50 only when some trend fell: quote exactly the ones that did.
  const A = s.firstHalf;
  const B = s.secondHalf;
  const fell: string[] = [];
  for (const k of ['engagement', 'views', 'posts'] as const) {
    if (!(parts[k] < 0)) continue;
    const older = A[k] / A.days;
    const newer = B[k] / B.days;
    fell.push(`daily ${k} is down ${percentUp(1 - newer / older)}`);
  }
  if (parts.sentiment < 0) fell.push('sentiment fell');
  if (fell.length === 0) return;
  const list = fell.length === 1 ? fell[0] : `${fell.slice(0, -1).join(', ')} and ${fell.at(-1)}`;
  out.push({
    pillar: 'momentum',
    platform: s.platform,
    gain: w * (50 - now),
    action:
      `Reverse the slowdown on ${s.platform}: in the second half of the window against the first, ${list}; ` +
      `bring posting back to its earlier level and repeat what worked then`,
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
