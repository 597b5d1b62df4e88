import type { Ratio, VisualRules } from './platform-rules.ts';
import { clamp01 } from './signals.ts';
import type { Signal } from './signals.ts';
import type { Format } from './types.ts';
import type { Platform } from '../core/catalog.ts';

/** Signals shared by images and videos: framing and sharpness. */

// prettier-ignore
const COMMON: Array<[number, number]> = [
  [1, 1], [4, 5], [5, 4], [4, 3], [3, 4], [3, 2], [2, 3], [16, 9], [9, 16], [2, 1], [21, 9],
];

/** Nearest familiar ratio name ('16:9'), or '1.43:1' when none is within 2%. */
export function ratioLabel(width: number, height: number): string {
  const value = width / height;
  for (const [w, h] of COMMON) if (Math.abs(value / (w / h) - 1) <= 0.02) return `${w}:${h}`;
  if (Math.abs(value / 1.91 - 1) <= 0.02) return '1.91:1';
  return value >= 1 ? `${value.toFixed(2)}:1` : `1:${(1 / value).toFixed(2)}`;
}

/** Pixel size of `ratio` at the rules' recommended short side. */
export function sizeFor(ratio: Ratio, rules: VisualRules): string {
  const short = Math.min(rules.recommended.width, rules.recommended.height);
  const [w, h] =
    ratio.value >= 1 ? [Math.round(short * ratio.value), short] : [short, Math.round(short / ratio.value)];
  return `${w}×${h}`;
}

const distance = (a: number, b: number) => Math.abs(Math.log(a / b));

export function aspectSignal(
  kind: 'image' | 'video',
  width: number,
  height: number,
  rules: VisualRules,
  platform: Platform,
  format: Format,
  weight: number,
): Signal {
  const base = { id: 'aspect_ratio', weight, pillars: { presence: 0.6, reach: 0.4 } };
  const value = width / height;
  // Within 3% of a preferred ratio is the ratio: encoders round odd pixel counts.
  if (rules.preferred.some((p) => Math.abs(value / p.value - 1) <= 0.03)) return { ...base, quality: 1 };
  const best = rules.preferred.reduce((a, b) =>
    distance(b.value, value) < distance(a.value, value) ? b : a,
  );
  const names = rules.preferred.map((p) => p.label).join(' or ');
  const measured = `the ${kind} is ${width}×${height} (${ratioLabel(width, height)})`;
  const accepted = value >= rules.accepted.min && value <= rules.accepted.max;
  return {
    ...base,
    quality: accepted ? 0.6 : 0.2,
    suggestion: accepted
      ? `Reframe to ${best.label} (${sizeFor(best, rules)}) to fill more of the screen: ${measured}, and ${platform} ${format}s look best at ${names}`
      : `Crop to ${best.label} (${sizeFor(best, rules)}): ${measured}, which ${platform} crops or letterboxes in a ${format}`,
  };
}

export function resolutionSignal(
  kind: 'image' | 'video',
  width: number,
  height: number,
  rules: VisualRules,
  weight: number,
): Signal {
  const base = { id: 'resolution', weight, pillars: { presence: 0.7, impact: 0.3 } };
  const short = Math.min(width, height);
  const recommended = Math.min(rules.recommended.width, rules.recommended.height);
  if (short >= recommended) return { ...base, quality: 1 };
  const quality = clamp01((short - rules.minShortSide) / (recommended - rules.minShortSide));
  const soft =
    short < rules.minShortSide ? `; below ${rules.minShortSide} px it is upscaled and looks soft` : '';
  return {
    ...base,
    quality,
    suggestion: `Export at ${recommended} px or more on the short side: the ${kind} is ${width}×${height}, ${short} px${soft}`,
  };
}
