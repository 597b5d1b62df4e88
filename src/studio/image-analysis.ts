import type { ImageFacts } from './media-probe.ts';
import { IMAGE_MAX_BYTES, IMAGE_TYPES, VISUAL_RULES } from './platform-rules.ts';
import type { Signal } from './signals.ts';
import type { Format } from './types.ts';
import { aspectSignal, resolutionSignal } from './visual-signals.ts';
import type { Platform } from '../core/catalog.ts';

/** Weights of the image signals; they add up to 100 (see docs/studio.md). */
export const IMAGE_WEIGHTS = {
  aspect_ratio: 40,
  resolution: 30,
  file_type: 10,
  file_size: 10,
  medium: 10,
} as const;

const TYPE_NAMES: Record<string, string> = { jpg: 'JPEG', png: 'PNG', gif: 'GIF', webp: 'WebP' };

const STILL_ALTERNATIVE: Partial<Record<Format, string>> = { reel: 'a post or a story', short: 'a post' };

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** `declaredBytes` is the server's Content-Length; an unknown size is not penalised. */
export function imageSignals(
  image: ImageFacts,
  declaredBytes: number | null,
  platform: Platform,
  format: Format,
): Signal[] {
  const rules = VISUAL_RULES[platform][format];
  if (!rules) throw new Error(`no visual rules for ${platform} ${format}`);
  const { width, height, type } = image;
  const accepted = IMAGE_TYPES[platform];
  const maxBytes = IMAGE_MAX_BYTES[platform];
  const signals: Signal[] = [
    aspectSignal('image', width, height, rules, platform, format, IMAGE_WEIGHTS.aspect_ratio),
    resolutionSignal('image', width, height, rules, IMAGE_WEIGHTS.resolution),
  ];
  signals.push({
    id: 'file_type',
    weight: IMAGE_WEIGHTS.file_type,
    quality: accepted.includes(type) ? 1 : 0,
    pillars: { presence: 1 },
    ...(accepted.includes(type) ? {} : { blocker: true }),
    ...(accepted.includes(type)
      ? {}
      : {
          suggestion: `Convert the image to JPEG or PNG: it is a ${TYPE_NAMES[type]}, which ${platform} does not accept`,
        }),
  });
  const oversize = declaredBytes !== null && declaredBytes > maxBytes;
  signals.push({
    id: 'file_size',
    weight: IMAGE_WEIGHTS.file_size,
    quality: oversize ? 0 : 1,
    pillars: { presence: 0.5, reach: 0.5 },
    ...(oversize ? { blocker: true } : {}),
    ...(oversize
      ? {
          suggestion: `Compress the image under ${mb(maxBytes)}: it is ${mb(declaredBytes)}, over the ${platform} upload limit`,
        }
      : {}),
  });
  const alternative = STILL_ALTERNATIVE[format];
  signals.push({
    id: 'medium',
    weight: IMAGE_WEIGHTS.medium,
    quality: alternative ? 0.3 : 1,
    pillars: { reach: 0.5, momentum: 0.5 },
    ...(alternative
      ? {
          suggestion: `Use a video for a ${format}, or publish this still as ${alternative}: a ${format} is a video format and a still image gets little watch time`,
        }
      : {}),
  });
  return signals;
}
