import type { Format } from './types.ts';
import type { Platform } from '../core/catalog.ts';

/**
 * Per-platform rules the analysers score against. Every number here is documented in
 * docs/studio.md; change both together.
 */

export interface Range {
  min: number;
  max: number;
}

export interface TextRules {
  /** What the platform calls the text, used in suggestions. */
  noun: string;
  /** Hard character limit: the platform rejects or truncates beyond it. */
  limit: number;
  /** Length that tends to perform best for a post (and for story/reel/short captions). */
  sweetSpot: Range;
  shortFormSweetSpot: Range;
  /** Characters shown before the "… more" cut on mobile. */
  previewCut: number;
  hashtags: Range;
  /** Above this the platform refuses the post or ignores every hashtag; null when there is none. */
  hashtagCap: number | null;
  emoji: Range;
  /** False where caption links are plain text (Instagram, TikTok). */
  linksClickable: boolean;
}

export const TEXT_RULES: Record<Platform, TextRules> = {
  instagram: {
    noun: 'caption',
    limit: 2200,
    sweetSpot: { min: 100, max: 500 },
    shortFormSweetSpot: { min: 50, max: 150 },
    previewCut: 125,
    hashtags: { min: 3, max: 5 },
    hashtagCap: 30,
    emoji: { min: 1, max: 3 },
    linksClickable: false,
  },
  tiktok: {
    noun: 'caption',
    limit: 4000,
    sweetSpot: { min: 50, max: 300 },
    shortFormSweetSpot: { min: 50, max: 300 },
    previewCut: 100,
    hashtags: { min: 3, max: 5 },
    hashtagCap: null,
    emoji: { min: 1, max: 3 },
    linksClickable: false,
  },
  youtube: {
    noun: 'description',
    limit: 5000,
    sweetSpot: { min: 200, max: 1500 },
    shortFormSweetSpot: { min: 50, max: 200 },
    previewCut: 150,
    hashtags: { min: 1, max: 3 },
    hashtagCap: 15,
    emoji: { min: 0, max: 3 },
    linksClickable: true,
  },
  twitter: {
    noun: 'post',
    limit: 280,
    sweetSpot: { min: 70, max: 140 },
    shortFormSweetSpot: { min: 70, max: 140 },
    previewCut: 280,
    hashtags: { min: 1, max: 2 },
    hashtagCap: null,
    emoji: { min: 0, max: 2 },
    linksClickable: true,
  },
  facebook: {
    noun: 'post',
    limit: 63206,
    sweetSpot: { min: 40, max: 250 },
    shortFormSweetSpot: { min: 20, max: 125 },
    previewCut: 250,
    hashtags: { min: 0, max: 2 },
    hashtagCap: null,
    emoji: { min: 0, max: 3 },
    linksClickable: true,
  },
};

export function textSweetSpot(platform: Platform, format: Format): Range {
  const rules = TEXT_RULES[platform];
  return format === 'post' || format === 'thread' ? rules.sweetSpot : rules.shortFormSweetSpot;
}

export interface Ratio {
  label: string;
  /** width / height */
  value: number;
}

const r = (w: number, h: number): Ratio => ({ label: `${w}:${h}`, value: w / h });
const VERTICAL = [r(9, 16)];

export interface VisualRules {
  /** Ratios shown uncropped and full size; within 3% counts as a match. */
  preferred: Ratio[];
  /** Ratios the platform shows without cropping (width / height); outside it crops or letterboxes. */
  accepted: Range;
  /** Recommended pixel size of the preferred ratio, used in suggestions. */
  recommended: { width: number; height: number };
  /** Short side below this is upscaled and looks soft: scored 0. */
  minShortSide: number;
}

const vertical: VisualRules = {
  preferred: VERTICAL,
  accepted: { min: 9 / 16 - 0.02, max: 9 / 16 + 0.02 },
  recommended: { width: 1080, height: 1920 },
  minShortSide: 480,
};

/** Keyed by platform, then by format; formats a platform does not publish are absent. */
export const VISUAL_RULES: Record<Platform, Partial<Record<Format, VisualRules>>> = {
  instagram: {
    post: {
      preferred: [r(4, 5), r(1, 1)],
      accepted: { min: 4 / 5, max: 1.91 },
      recommended: { width: 1080, height: 1350 },
      minShortSide: 320,
    },
    story: vertical,
    reel: vertical,
  },
  facebook: {
    post: {
      preferred: [r(4, 5), r(1, 1), r(16, 9)],
      accepted: { min: 4 / 5, max: 1.91 },
      recommended: { width: 1080, height: 1350 },
      minShortSide: 320,
    },
    story: vertical,
    reel: vertical,
  },
  tiktok: {
    post: {
      preferred: VERTICAL,
      accepted: { min: 9 / 16 - 0.02, max: 4 / 5 },
      recommended: { width: 1080, height: 1920 },
      minShortSide: 480,
    },
  },
  youtube: {
    post: {
      preferred: [r(16, 9)],
      accepted: { min: 16 / 9 - 0.05, max: 16 / 9 + 0.05 },
      recommended: { width: 1920, height: 1080 },
      minShortSide: 360,
    },
    short: vertical,
  },
  twitter: {
    post: {
      preferred: [r(16, 9), r(1, 1)],
      accepted: { min: 3 / 4, max: 2 },
      recommended: { width: 1600, height: 900 },
      minShortSide: 300,
    },
    thread: {
      preferred: [r(16, 9), r(1, 1)],
      accepted: { min: 3 / 4, max: 2 },
      recommended: { width: 1600, height: 900 },
      minShortSide: 300,
    },
  },
};

/** Largest image each platform accepts, in bytes (only checked when the server declares a size). */
export const IMAGE_MAX_BYTES: Record<Platform, number> = {
  instagram: 8 * 1024 * 1024,
  facebook: 10 * 1024 * 1024,
  tiktok: 20 * 1024 * 1024,
  youtube: 2 * 1024 * 1024,
  twitter: 5 * 1024 * 1024,
};

/** Image types each platform takes; GIF is animated-only on Twitter/Facebook and refused elsewhere. */
export const IMAGE_TYPES: Record<Platform, readonly string[]> = {
  instagram: ['jpg', 'png', 'webp'],
  facebook: ['jpg', 'png', 'webp', 'gif'],
  tiktok: ['jpg', 'png', 'webp'],
  youtube: ['jpg', 'png', 'webp', 'gif'],
  twitter: ['jpg', 'png', 'webp', 'gif'],
};

export interface DurationRules {
  /** Seconds; longer uploads are refused or cut. */
  max: number;
  /** Seconds range with the best completion and reach. */
  sweetSpot: Range;
}

export const DURATION_RULES: Record<Platform, Partial<Record<Format, DurationRules>>> = {
  instagram: {
    post: { max: 3600, sweetSpot: { min: 15, max: 60 } },
    reel: { max: 90, sweetSpot: { min: 15, max: 30 } },
    story: { max: 60, sweetSpot: { min: 5, max: 15 } },
  },
  facebook: {
    post: { max: 14400, sweetSpot: { min: 60, max: 180 } },
    reel: { max: 90, sweetSpot: { min: 15, max: 30 } },
    story: { max: 60, sweetSpot: { min: 5, max: 15 } },
  },
  tiktok: {
    post: { max: 600, sweetSpot: { min: 15, max: 60 } },
  },
  youtube: {
    post: { max: 43200, sweetSpot: { min: 420, max: 900 } },
    short: { max: 180, sweetSpot: { min: 15, max: 60 } },
  },
  twitter: {
    post: { max: 140, sweetSpot: { min: 15, max: 45 } },
    thread: { max: 140, sweetSpot: { min: 15, max: 45 } },
  },
};

/** Video codec families (mp4box codec string prefix) each platform plays without re-encoding trouble. */
export const VIDEO_CODECS: Record<Platform, readonly string[]> = {
  instagram: ['avc1', 'avc3', 'hvc1', 'hev1'],
  facebook: ['avc1', 'avc3', 'hvc1', 'hev1'],
  tiktok: ['avc1', 'avc3', 'hvc1', 'hev1'],
  youtube: ['avc1', 'avc3', 'hvc1', 'hev1', 'vp09', 'av01'],
  twitter: ['avc1', 'avc3'],
};

/** Formats watched with sound on by default, where a silent video loses most of its pull. */
export function soundFirst(platform: Platform, format: Format): boolean {
  return platform === 'tiktok' || format === 'reel' || format === 'short' || format === 'story';
}
