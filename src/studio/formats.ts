import { FORMATS } from './types.ts';
import type { Format } from './types.ts';
import { type Platform, PLATFORMS } from '../core/catalog.ts';

/**
 * Formats each platform actually publishes. A combination outside this table describes
 * content that cannot exist (a TikTok "thread"), so it is a 400 rather than feedback: there
 * is nothing meaningful to score it against.
 */
export const FORMATS_BY_PLATFORM: Record<Platform, readonly Format[]> = {
  instagram: ['post', 'story', 'reel'],
  facebook: ['post', 'story', 'reel'],
  tiktok: ['post'],
  youtube: ['post', 'short'],
  twitter: ['post', 'thread'],
};

/** Null when `format` is published on `platform`, otherwise a message for a 400 response. */
export function formatProblem(platform: string, format: string): string | null {
  if (!(PLATFORMS as readonly string[]).includes(platform)) {
    return `platform must be one of ${PLATFORMS.join(', ')}, got "${platform}"`;
  }
  if (!(FORMATS as readonly string[]).includes(format)) {
    return `format must be one of ${FORMATS.join(', ')}, got "${format}"`;
  }
  const allowed = FORMATS_BY_PLATFORM[platform as Platform];
  if (allowed.includes(format as Format)) return null;
  const hosts = PLATFORMS.filter((p) => FORMATS_BY_PLATFORM[p].includes(format as Format));
  return `format "${format}" is not published on ${platform} (${platform} supports ${allowed.join(', ')}; "${format}" exists on ${hosts.join(', ')})`;
}
