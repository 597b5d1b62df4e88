import { round1 } from './math.ts';

/** Signed one-decimal change as the API shows it: '+4.2', '-1.0', '+0.0'. Non-finite inputs give '+0.0'. */
export function signedDelta(current: number, previous: number): string {
  const d = current - previous;
  if (!Number.isFinite(d)) return '+0.0';
  // Round the operands' difference once; values that round to zero print as '+0.0', never '-0.0'.
  const r = round1(d);
  return r > 0 || r === 0 ? `+${r.toFixed(1)}` : r.toFixed(1);
}
