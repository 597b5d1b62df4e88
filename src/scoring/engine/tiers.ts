import type { AccountTier } from './types.ts';

/** Lower audience bound of each tier (inclusive); the next tier's bound is the exclusive upper bound. */
export const TIER_FLOORS: Readonly<Record<AccountTier, number>> = {
  nano: 0,
  micro: 10_000,
  mid: 100_000,
  macro: 500_000,
  mega: 1_000_000,
};

/** Account tier from audience size: nano <10k, micro 10k-<100k, mid 100k-<500k, macro 500k-<1M, mega >=1M. */
export function tierFor(followers: number): AccountTier {
  if (!(followers >= TIER_FLOORS.micro)) return 'nano'; // also NaN / negative
  if (followers < TIER_FLOORS.mid) return 'micro';
  if (followers < TIER_FLOORS.macro) return 'mid';
  if (followers < TIER_FLOORS.mega) return 'macro';
  return 'mega';
}
