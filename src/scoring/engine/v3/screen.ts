/**
 * Formula v3's manipulation screen: before the v2 evaluation, each platform's days are compared with
 * the account's own history, and what a manipulation added is taken out of the inputs (so it earns
 * nothing) and reported as a flag with its figures. docs/scoring.md ("Formula v3: authenticity").
 *
 * The reference of a week is the account's own weeks in the REFERENCE_DAYS before it (ending a week
 * earlier, so a manipulation that started days ago is not yet its own history). A manipulation that
 * has run for more than about half of REFERENCE_DAYS becomes the account's history: the screen then
 * stops seeing it (a documented limit).
 */
import { REPEAT_COMMENTER_POSTS, type DailySnapshot } from '../../../core/metric-snapshot.ts';
import type { Platform } from '../../../core/catalog.ts';
import { formatDay, parseDay, requireDay } from '../../../core/days.ts';
import { selectK } from '../v2/stats.ts';
import type { AuthenticityFlagV3 } from './types.ts';
import { FOLLOWER_SPIKE_MARGIN } from '../v2/constants.ts';

/** Days of own history a week is compared with (ending REFERENCE_GAP days before the week). */
export const REFERENCE_DAYS = 180;
export const REFERENCE_GAP = 7;
/** A week needs this many reference days with data to be screened. */
export const MIN_REFERENCE_DAYS = 28;
/** Follower growth over DRIP_SPAN days beyond the organic rate (log) that can be a drip. */
export const DRIP_SPAN = 30;
export const DRIP_MIN_EXCESS = 0.08;
/** Growth counts as carried by reach when views grew by at least this share of the follower excess. */
export const DRIP_VIEW_SUPPORT = 0.5;
/** A week's engagement (or likes) per view above this multiple of the reference is suspect... */
export const ENGAGEMENT_RATIO_LIMIT = 1.4;
/** ...when also this many Poisson standard deviations above it (small counts are noisy)... */
export const ENGAGEMENT_MIN_Z = 3;
/** ...and views per follower did not rise by more than this multiple (honest engagement brings views). */
export const VIEW_RISE_LIMIT = 1.15;
/** Likes per comment above this multiple of the reference make a suspect week bought likes, not a pod. */
export const LIKE_COMMENT_LIMIT = 1.3;
/**
 * Per-post pod evidence (comments whose author and time were read): a week whose share of comments by
 * repeat commenters, or written within an hour of their post, is this much above the account's own
 * history (absolute)...
 */
export const POD_SHARE_RISE = 0.15;
/** ...and this many binomial standard deviations above it... */
export const POD_SHARE_MIN_Z = 4;
/** ...over at least this many comments in the week, against at least POD_REFERENCE_WEEKS weeks with some. */
export const POD_MIN_COMMENTS = 10;
export const POD_REFERENCE_WEEKS = 4;
/**
 * With that evidence a week is a pod's when its engagement per view is above its history by any margin
 * beyond chance (ENGAGEMENT_MIN_Z), even when its views rose: a pod's engagement lifts the posts' reach.
 */
export const POD_EVIDENCE_RATIO_LIMIT = 1;
/** Posts per week above this multiple of the reference (plus one) are screened for filler. */
export const FILLER_POST_RATIO = 1.5;
/** ...and this many Poisson standard deviations (plus two posts) above it. */
export const FILLER_MIN_Z = 3;

export interface ScreenResult {
  snapshots: DailySnapshot[];
  flags: AuthenticityFlagV3[];
  screened: Platform[];
}

const n = (x: number | undefined): number => (x !== undefined && Number.isFinite(x) && x > 0 ? x : 0);

/** Median by selection (the same value a sort gives, in linear time; the screen takes many per score). */
function median(xs: readonly number[]): number {
  const len = xs.length;
  if (len === 0) return NaN;
  const a = Float64Array.from(xs);
  const m = len >> 1;
  const upper = selectK(a, len, m);
  if (len % 2) return upper;
  // After selection a[0..m) holds the m smallest: the largest of them is the lower middle value.
  let lower = -Infinity;
  for (let i = 0; i < m; i++) if (a[i]! > lower) lower = a[i]!;
  return (lower + upper) / 2;
}

/** Screen every platform's snapshots up to `asOf` (later days are dropped: they cannot be scored). */
export function screenSnapshots(
  snapshots: readonly DailySnapshot[],
  asOf: string,
  windowStart: string,
): ScreenResult {
  const end = requireDay(asOf, 'asOf');
  const start = requireDay(windowStart, 'windowStart');
  const byPlatform = new Map<Platform, Day[]>();
  const rest: DailySnapshot[] = [];
  for (const s of snapshots) {
    if (!s || typeof s.day !== 'string') continue;
    const d = parseDay(s.day);
    if (d === null) {
      rest.push(s);
      continue;
    }
    const list = byPlatform.get(s.platform) ?? [];
    list.push({ s, n: d });
    byPlatform.set(s.platform, list);
  }
  const flags: AuthenticityFlagV3[] = [];
  const screened: Platform[] = [];
  const out: DailySnapshot[] = [...rest];
  for (const [platform, list] of byPlatform) {
    // Days up to asOf are screened (copies, so the caller's snapshots are never changed); later ones pass.
    const days = list
      .filter((x) => x.n <= end)
      .sort((a, b) => a.n - b.n)
      .map((x) => ({ s: { ...x.s }, n: x.n }));
    const before = flags.length;
    const changed = screenPlatform(platform, days, start, end, flags);
    if (changed || flags.length > before) screened.push(platform);
    for (const x of days) out.push(x.s);
    for (const x of list) if (x.n > end) out.push(x.s);
  }
  return { snapshots: out, flags, screened };
}

interface Day {
  s: DailySnapshot;
  n: number;
}

/** Index of the first of `days` (sorted by day) on or after day `from`; days.length when none. */
function firstOnOrAfter(days: readonly Day[], from: number): number {
  let lo = 0;
  let hi = days.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (days[mid]!.n < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function screenPlatform(
  platform: Platform,
  days: Day[],
  start: number,
  end: number,
  flags: AuthenticityFlagV3[],
): boolean {
  if (days.length === 0) return false;
  let changed = screenDeletions(platform, days, flags);
  changed = screenDrip(platform, days, start, end, flags) || changed;
  changed = screenEngagement(platform, days, start, end, flags) || changed;
  changed = screenFiller(platform, days, start, end, flags) || changed;
  return changed;
}

/**
 * Deleted comments: each day's `commentsDeleted` (the fall of its posts' comment counts below the
 * highest count seen between syncs) goes back into the day's comments as negative ones, before the
 * other screens read the days. A deleted comment cannot be classified any more; counting it as a
 * complaint means the removal of criticism earns nothing (deleting praise or spam only costs the
 * account, which the flag lets a human see).
 */
function screenDeletions(platform: Platform, days: Day[], flags: AuthenticityFlagV3[]): boolean {
  let total = 0;
  let first = -1;
  let last = -1;
  let dayCount = 0;
  for (const d of days) {
    const deleted = n(d.s.commentsDeleted);
    if (deleted <= 0) continue;
    d.s.comments = n(d.s.comments) + deleted;
    d.s.sentimentNegative = n(d.s.sentimentNegative) + deleted;
    total += deleted;
    dayCount++;
    if (first < 0) first = d.n;
    last = d.n;
  }
  if (total <= 0) return false;
  flags.push({
    code: 'comments_deleted',
    platform,
    day: formatDay(first),
    detail: `${Math.round(total)} comments deleted from the posts of ${dayCount} ${dayCount === 1 ? 'day' : 'days'} (${formatDay(first)} to ${formatDay(last)}) after they were counted; they count as negative comments.`,
  });
  return true;
}

/**
 * Drips: the excess of cumulative follower growth over the account's own median daily growth, over
 * DRIP_SPAN days, that views did not follow. Days inside a suspect span grow at the organic rate.
 */
function screenDrip(
  platform: Platform,
  days: Day[],
  start: number,
  end: number,
  flags: AuthenticityFlagV3[],
): boolean {
  const dlog: number[] = new Array<number>(days.length).fill(NaN);
  for (let i = 1; i < days.length; i++) {
    const a = n(days[i - 1]!.s.followers);
    const b = n(days[i]!.s.followers);
    const gap = days[i]!.n - days[i - 1]!.n;
    if (a > 0 && b > 0 && gap > 0) dlog[i] = Math.log(b / a) / gap;
  }
  const valid = dlog.filter((x) => Number.isFinite(x));
  if (valid.length < MIN_REFERENCE_DAYS) return false;
  const r0 = median(valid);
  // One-day jumps are formula v2's follower_spike (its own limit, left to it): not part of a drip.
  const mad = median(valid.map((x) => Math.abs(x - r0)));
  const spike = r0 + Math.max(FOLLOWER_SPIKE_MARGIN.floor, FOLLOWER_SPIKE_MARGIN.madMultiple * mad);
  for (let i = 0; i < dlog.length; i++) if (dlog[i]! > spike) dlog[i] = NaN;
  const views = (from: number, to: number): number => {
    let s = 0;
    let c = 0;
    for (let i = firstOnOrAfter(days, from); i < days.length && days[i]!.n <= to; i++) {
      const v = n(days[i]!.s.impressions);
      if (v > 0) {
        s += v;
        c++;
      }
    }
    return c > 0 ? s / c : NaN;
  };
  const suspect = new Array<boolean>(days.length).fill(false);
  let worst = 0;
  let worstDay = -1;
  let worstViews = 0;
  for (let t = 0; t < days.length; t++) {
    const tn = days[t]!.n;
    if (tn < start || tn > end) continue;
    let x = 0;
    let first = t;
    for (let i = t; i > 0 && days[i]!.n > tn - DRIP_SPAN; i--) {
      if (Number.isFinite(dlog[i]!)) x += dlog[i]! - r0;
      first = i;
    }
    if (x <= DRIP_MIN_EXCESS) continue;
    const v0 = views(tn - DRIP_SPAN - 6, tn - DRIP_SPAN);
    const v1 = views(tn - 6, tn);
    const v = v0 > 0 && v1 > 0 ? Math.log(v1 / v0) : 0;
    if (v >= DRIP_VIEW_SUPPORT * x) continue;
    for (let i = first; i <= t; i++) suspect[i] = true;
    if (x > worst) {
      worst = x;
      worstDay = first;
      worstViews = v;
    }
  }
  if (worstDay < 0) return false;
  // Rebuilt from the first day: suspect days grow at the organic rate, every later day keeps its own
  // change, so the purchase is left out of the level from then on (as v2 does for a one-day spike).
  let f = n(days[0]!.s.followers);
  let removed = 0;
  for (let i = 1; i < days.length; i++) {
    const d = dlog[i]!;
    const own = n(days[i]!.s.followers);
    if (!Number.isFinite(d) || f <= 0) {
      if (own > 0) {
        f = own * Math.exp(-removed);
        days[i]!.s.followers = Math.round(f);
      }
      continue;
    }
    const gap = days[i]!.n - days[i - 1]!.n;
    const step = suspect[i] && d > r0 ? r0 : d;
    removed += (d - step) * gap;
    f *= Math.exp(step * gap);
    days[i]!.s.followers = Math.round(f);
  }
  flags.push({
    code: 'follower_drip',
    platform,
    day: formatDay(days[worstDay]!.n),
    detail: `Followers grew ${pct(Math.expm1(worst))} beyond the account's own rate within ${DRIP_SPAN} days while views changed ${pct(Math.expm1(worstViews))}; the excess (${pct(Math.expm1(removed))} of the audience) is not credited.`,
  });
  return true;
}

function pct(x: number): string {
  return `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}%`;
}

interface Week {
  from: number;
  to: number;
  items: Day[];
  views: number;
  likes: number;
  comments: number;
  engagement: number;
  posts: number;
  followers: number;
  /** Comments whose author and time were read, and of those by repeat commenters and early ones. */
  attributed: number;
  repeat: number;
  early: number;
}

function weekOf(days: Day[], from: number, to: number): Week {
  const w: Week = {
    from,
    to,
    items: [],
    views: 0,
    likes: 0,
    comments: 0,
    engagement: 0,
    posts: 0,
    followers: 0,
    attributed: 0,
    repeat: 0,
    early: 0,
  };
  for (let i = firstOnOrAfter(days, from); i < days.length && days[i]!.n <= to; i++) {
    const d = days[i]!;
    w.items.push(d);
    w.views += n(d.s.impressions);
    w.likes += n(d.s.likes);
    w.comments += n(d.s.comments);
    // Negative comments are complaints, not engagement a pod could add: they never make a week suspect.
    w.engagement +=
      n(d.s.likes) + Math.max(0, n(d.s.comments) - n(d.s.sentimentNegative)) + n(d.s.shares) + n(d.s.saves);
    w.posts += n(d.s.posts);
    w.followers = Math.max(w.followers, n(d.s.followers));
    const attributed = n(d.s.commentsAttributed);
    w.attributed += attributed;
    w.repeat += Math.min(attributed, n(d.s.commentsRepeat));
    w.early += Math.min(attributed, n(d.s.commentsEarly));
  }
  return w;
}

/**
 * The screened weeks of the window (7-day blocks ending at `end`), oldest first, each with its
 * reference weeks. Oldest first, so a week's reference holds the screened values of earlier weeks
 * (a manipulation does not become its own history while it runs inside the window).
 */
function* weeks(days: Day[], start: number, end: number): Generator<{ week: Week; ref: Week[] }> {
  const ends: number[] = [];
  for (let to = end; to >= start; to -= 7) ends.unshift(to);
  for (const to of ends) {
    const from = to - 6;
    const week = weekOf(days, from, to);
    if (week.items.length < 4) continue;
    const ref: Week[] = [];
    for (let rTo = from - REFERENCE_GAP - 1; rTo - 6 >= from - REFERENCE_GAP - REFERENCE_DAYS; rTo -= 7) {
      const r = weekOf(days, rTo - 6, rTo);
      if (r.items.length >= 4) ref.push(r);
    }
    if (ref.length * 7 < MIN_REFERENCE_DAYS) continue;
    yield { week, ref };
  }
}

const per = (a: number, b: number): number => (b > 0 ? a / b : NaN);
const finiteMedian = (xs: number[]): number => median(xs.filter((x) => Number.isFinite(x)));
/** Lower quartile of the finite values: the rate a flagged manipulation's weeks are held to. */
function lowerQuartile(xs: number[]): number {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const h = (s.length - 1) * 0.25;
  const lo = Math.floor(h);
  return s[lo]! + (s[Math.min(s.length - 1, lo + 1)]! - s[lo]!) * (h - lo);
}

/** A week's share of comments by repeat commenters and of early ones, against its reference weeks'. */
interface PodEvidence {
  repeat: number;
  refRepeat: number;
  early: number;
  refEarly: number;
  /** How far the stronger of the two rose, in binomial standard deviations. */
  z: number;
}

/**
 * Pod evidence from who wrote a week's comments and when: either share at least POD_SHARE_RISE above
 * the pooled share of the reference weeks and POD_SHARE_MIN_Z binomial sd above it. Null when the week
 * or its reference has too few comments with authors read (connections that give none, or history
 * stored before they were read).
 */
function podEvidence(week: Week, ref: readonly Week[]): PodEvidence | null {
  if (week.attributed < POD_MIN_COMMENTS) return null;
  let attributed = 0;
  let repeat = 0;
  let early = 0;
  let weeks = 0;
  for (const r of ref) {
    if (r.attributed <= 0) continue;
    weeks++;
    attributed += r.attributed;
    repeat += r.repeat;
    early += r.early;
  }
  if (weeks < POD_REFERENCE_WEEKS || attributed < POD_MIN_COMMENTS) return null;
  const e: PodEvidence = {
    repeat: week.repeat / week.attributed,
    refRepeat: repeat / attributed,
    early: week.early / week.attributed,
    refEarly: early / attributed,
    z: 0,
  };
  const rise = (share: number, refShare: number): number => {
    if (share - refShare < POD_SHARE_RISE) return 0;
    // The reference share floored at 1%, so an account with no repeat commenters before is not infinitely sure.
    const p = Math.min(0.99, Math.max(0.01, refShare));
    return (share - refShare) / Math.sqrt((p * (1 - p)) / week.attributed);
  };
  e.z = Math.max(rise(e.repeat, e.refRepeat), rise(e.early, e.refEarly));
  return e.z >= POD_SHARE_MIN_Z ? e : null;
}

/**
 * Bought likes and pods: a week whose engagement per view (or likes per view) is above the account's
 * own history while its views per follower are not. Likes per comment up as well: bought likes (the
 * likes above the historical likes per view are taken out); otherwise a pod (all engagement above the
 * historical rate, and the same share of positive and neutral comments, is taken out).
 */
function screenEngagement(
  platform: Platform,
  days: Day[],
  start: number,
  end: number,
  flags: AuthenticityFlagV3[],
): boolean {
  // First pass: is any week clearly inflated? Then the manipulation earns nothing: every week of the
  // window is held to the historical rate with looser limits (its first and last weeks are partial).
  const found = engagementPass(days, start, end, ENGAGEMENT_RATIO_LIMIT, ENGAGEMENT_MIN_Z, false);
  if (!found.likes && !found.pod) return false;
  const done = engagementPass(days, start, end, FOLLOW_UP_RATIO_LIMIT, FOLLOW_UP_MIN_Z, true, found);
  if (done.likes)
    flags.push({
      code: 'bought_likes',
      platform,
      day: formatDay(done.likes.day),
      detail: `Likes per view reached ${done.likes.ratio.toFixed(1)}x the account's own history, likes per comment rose with them and views did not; ${Math.round(done.likes.removed)} likes above the historical rate are not credited.`,
    });
  if (done.pod)
    flags.push({
      code: 'engagement_pod',
      platform,
      day: formatDay(done.pod.day),
      detail: `Engagement per view reached ${done.pod.ratio.toFixed(1)}x the account's own history ${found.pod?.evidence ? evidenceText(found.pod.evidence) : 'with no rise in views per follower'}; ${Math.round(done.pod.removed)} engagements and ${Math.round(done.pod.applause)} positive or neutral comments above the historical rate${done.pod.viewsRemoved >= 0.5 ? `, and ${Math.round(done.pod.viewsRemoved)} views above its views per follower,` : ''} are not credited.`,
    });
  return true;
}

function evidenceText(e: PodEvidence): string {
  const share = (x: number) => `${Math.round(100 * x)}%`;
  return `while ${share(e.repeat)} of its comments came from accounts commenting on at least ${REPEAT_COMMENTER_POSTS} of its posts (history ${share(e.refRepeat)}) and ${share(e.early)} within an hour of their post (history ${share(e.refEarly)})`;
}

/** Once a week is clearly inflated, every week of the window above its lower-quartile history by this multiple... */
export const FOLLOW_UP_RATIO_LIMIT = 1;
/** ...and this many standard deviations. */
export const FOLLOW_UP_MIN_Z = 0;

interface Finding {
  day: number;
  ratio: number;
  removed: number;
  applause: number;
  /** Views above the history's views per follower in a pod's weeks, not credited. */
  viewsRemoved: number;
  /** The strongest per-post evidence of a pod found in its weeks. */
  evidence?: PodEvidence;
}

function engagementPass(
  days: Day[],
  start: number,
  end: number,
  limit: number,
  minZ: number,
  apply: boolean,
  kinds?: { likes: Finding | null; pod: Finding | null },
): { likes: Finding | null; pod: Finding | null } {
  let likesFlag: Finding | null = null;
  let podFlag: Finding | null = null;
  const note = (f: Finding | null, day: number, ratio: number): Finding => {
    const g = f ?? { day, ratio, removed: 0, applause: 0, viewsRemoved: 0 };
    if (day < g.day) g.day = day;
    g.ratio = Math.max(g.ratio, ratio);
    return g;
  };
  for (const { week, ref } of weeks(days, start, end)) {
    if (!(week.views > 0)) continue;
    // Detection against the median week; once found, the weeks are held to the lower quartile, so a
    // manipulation cannot keep the upper half of the account's honest spread as a gain.
    const level = apply ? lowerQuartile : finiteMedian;
    const refEV = level(ref.map((r) => per(r.engagement, r.views)));
    const refLV = level(ref.map((r) => per(r.likes, r.views)));
    const refLC = finiteMedian(ref.map((r) => per(r.likes, r.comments)));
    const refCV = level(ref.map((r) => per(r.comments, r.views)));
    const refVF = finiteMedian(ref.map((r) => per(r.views, r.followers)));
    if (!(refEV > 0) || !(refLV > 0)) continue;
    const vf = per(week.views, week.followers);
    // Who wrote the week's comments and when: a pod's own signature, found in detection only.
    const evidence = kinds === undefined ? podEvidence(week, ref) : null;
    // Detection spares weeks whose views rose (a hit brings engagement with it) unless the comments show
    // a pod; once a manipulation is found, every week is held to the historical rate per view.
    if (
      kinds === undefined &&
      !evidence &&
      Number.isFinite(refVF) &&
      refVF > 0 &&
      vf > VIEW_RISE_LIMIT * refVF
    )
      continue;
    const lc = per(week.likes, week.comments);
    const likesUp =
      kinds !== undefined
        ? kinds.likes !== null && (kinds.pod === null || !Number.isFinite(lc) || lc > refLC)
        : !evidence &&
          Number.isFinite(refLC) &&
          refLC > 0 &&
          (!Number.isFinite(lc) || lc > LIKE_COMMENT_LIMIT * refLC);
    if (likesUp) {
      const expected = refLV * week.views;
      if (!(week.likes > limit * expected)) continue;
      if ((week.likes - expected) / Math.sqrt(Math.max(1, expected)) < minZ) continue;
      likesFlag = note(likesFlag, week.from, week.likes / expected);
      if (!apply) continue;
      const k = expected / week.likes;
      for (const d of week.items) d.s.likes = n(d.s.likes) * k;
      likesFlag.removed += week.likes - expected;
    } else {
      // A pod's engagement lifts its posts' reach: once a pod is found, a week whose comments show one
      // keeps no more views per follower than its history's median.
      if (
        apply &&
        Number.isFinite(refVF) &&
        refVF > 0 &&
        vf > VIEW_RISE_LIMIT * refVF &&
        podEvidence(week, ref)
      ) {
        const kv = refVF / vf;
        for (const d of week.items) d.s.impressions = Math.round(n(d.s.impressions) * kv);
        podFlag = note(podFlag, week.from, 1);
        podFlag.viewsRemoved += week.views * (1 - kv);
        week.views *= kv;
      }
      const expected = refEV * week.views;
      if (!(week.engagement > (evidence ? Math.min(limit, POD_EVIDENCE_RATIO_LIMIT) : limit) * expected))
        continue;
      if ((week.engagement - expected) / Math.sqrt(Math.max(1, expected)) < minZ) continue;
      podFlag = note(podFlag, week.from, week.engagement / expected);
      if (evidence && (!podFlag.evidence || evidence.z > podFlag.evidence.z)) podFlag.evidence = evidence;
      if (!apply) continue;
      const k = expected / week.engagement;
      // The pod's comments are applause: the comments above the historical rate leave the positive
      // (then neutral) counts, in proportion to each day's comments; negatives stay.
      const excessComments = Math.max(
        0,
        week.comments - (refCV > 0 ? refCV * week.views : week.comments * k),
      );
      let applause = 0;
      for (const d of week.items) {
        const s = d.s;
        const share = week.comments > 0 ? n(s.comments) / week.comments : 0;
        let take = excessComments * share;
        const pos = Math.min(n(s.sentimentPositive), take);
        take -= pos;
        const neu = Math.min(n(s.sentimentNeutral), take);
        s.sentimentPositive = Math.round(n(s.sentimentPositive) - pos);
        s.sentimentNeutral = Math.round(n(s.sentimentNeutral) - neu);
        applause += pos + neu;
        s.likes = n(s.likes) * k;
        s.comments = n(s.comments) * k;
        s.shares = n(s.shares) * k;
        s.saves = n(s.saves) * k;
      }
      podFlag.removed += week.engagement - expected;
      podFlag.applause += applause;
    }
  }
  return { likes: likesFlag, pod: podFlag };
}

/**
 * Filler: posts per week well above the account's own history while views did not follow. Presence
 * counts the posts the week's views carry at the historical views per post (at least the historical
 * posts a week).
 */
function screenFiller(
  platform: Platform,
  days: Day[],
  start: number,
  end: number,
  flags: AuthenticityFlagV3[],
): boolean {
  let changed = false;
  let flag: { day: number; posts: number; credited: number } | null = null;
  for (const { week, ref } of weeks(days, start, end)) {
    const refPosts = ref.reduce((t, r) => t + r.posts, 0) / ref.length;
    // Beyond chance too: a schedule's weekly count varies about like a Poisson count.
    if (
      !(week.posts > FILLER_POST_RATIO * refPosts + 1) ||
      !(week.posts > refPosts + FILLER_MIN_Z * Math.sqrt(refPosts) + 2)
    )
      continue;
    const refViews = finiteMedian(ref.map((r) => r.views));
    const viewsRatio = refViews > 0 && week.views > 0 ? week.views / refViews : 1;
    // Views per post fell by the ratio the posts rose: the extra posts carried no reach of their own,
    // so the week counts the account's usual pace.
    if (!(refPosts * viewsRatio < week.posts / FILLER_POST_RATIO)) continue;
    const credited = Math.min(week.posts, refPosts);
    // The credited posts go to the week's days with the most views (as an honest schedule's post
    // days stand out), so days without a credited post read as post-less days again.
    let left = credited;
    for (const d of [...week.items].sort((x, y) => n(y.s.impressions) - n(x.s.impressions))) {
      const keep = Math.min(n(d.s.posts), Math.max(0, left));
      left -= keep;
      d.s.posts = keep;
    }
    changed = true;
    if (!flag || week.from > flag.day) flag = { day: week.from, posts: 0, credited: 0 };
    flag.posts += week.posts;
    flag.credited += credited;
  }
  if (flag)
    flags.push({
      code: 'filler_posts',
      platform,
      day: formatDay(flag.day),
      detail: `${Math.round(flag.posts)} posts in the flagged weeks against the account's usual pace, with views that carry about ${flag.credited.toFixed(1)} of them; only those count for presence.`,
    });
  return changed;
}
