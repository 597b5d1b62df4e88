import type { VideoFacts } from './media-probe.ts';
import { DURATION_RULES, soundFirst, VIDEO_CODECS, VISUAL_RULES } from './platform-rules.ts';
import type { Signal } from './signals.ts';
import type { Format } from './types.ts';
import { aspectSignal, resolutionSignal } from './visual-signals.ts';
import type { Platform } from '../core/catalog.ts';

/** Weights of the video signals; they add up to 100 (see docs/studio.md). */
export const VIDEO_WEIGHTS = {
  duration: 35,
  aspect_ratio: 25,
  resolution: 20,
  audio: 10,
  codec: 10,
} as const;

/** '45 s', '1 min 30 s', '2 h 5 min'. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Number(seconds.toFixed(1))} s`;
  const whole = Math.round(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  return s > 0 ? `${m} min ${s} s` : `${m} min`;
}

function durationSignal(seconds: number, platform: Platform, format: Format): Signal {
  const rules = DURATION_RULES[platform][format];
  if (!rules) throw new Error(`no duration rules for ${platform} ${format}`);
  const base = {
    id: 'duration',
    weight: VIDEO_WEIGHTS.duration,
    pillars: { momentum: 0.5, reach: 0.3, impact: 0.2 },
  };
  const { max, sweetSpot } = rules;
  const runs = `it runs ${formatDuration(seconds)}`;
  const span = `the ${platform} ${format} sweet spot is ${formatDuration(sweetSpot.min)} to ${formatDuration(sweetSpot.max)}`;
  if (seconds > max) {
    return {
      ...base,
      quality: 0,
      blocker: true,
      // Trimmed to the limit it is still long: the duration check's quality there.
      fixedQuality: 0.4,
      suggestion: `Trim the video to ${formatDuration(max)} or less, the ${platform} ${format} limit: ${runs}`,
    };
  }
  if (seconds < sweetSpot.min) {
    return {
      ...base,
      quality: 0.5 + (0.5 * seconds) / sweetSpot.min,
      suggestion: `Extend the video to at least ${formatDuration(sweetSpot.min)} (${span}): ${runs}`,
    };
  }
  if (seconds > sweetSpot.max) {
    return {
      ...base,
      quality: 1 - (0.6 * (seconds - sweetSpot.max)) / (max - sweetSpot.max),
      suggestion: `Trim the video towards ${formatDuration(sweetSpot.max)} (${span}): ${runs}`,
    };
  }
  return { ...base, quality: 1 };
}

export function videoSignals(video: VideoFacts, platform: Platform, format: Format): Signal[] {
  const rules = VISUAL_RULES[platform][format];
  if (!rules) throw new Error(`no visual rules for ${platform} ${format}`);
  const { width, height } = video;
  const family = video.codec.split('.')[0] ?? video.codec;
  const codecOk = VIDEO_CODECS[platform].includes(family);
  const loud = soundFirst(platform, format);
  return [
    durationSignal(video.durationSeconds, platform, format),
    aspectSignal('video', width, height, rules, platform, format, VIDEO_WEIGHTS.aspect_ratio),
    resolutionSignal('video', width, height, rules, VIDEO_WEIGHTS.resolution),
    {
      id: 'audio',
      weight: VIDEO_WEIGHTS.audio,
      quality: video.hasAudio ? 1 : loud ? 0.2 : 0.7,
      pillars: { impact: 0.5, momentum: 0.5 },
      ...(video.hasAudio
        ? {}
        : {
            suggestion: loud
              ? `Add music or a voice-over: the video has no audio track, and ${platform} ${format}s are watched with sound on`
              : 'Add an audio track (and captions for muted autoplay): the video has no audio track',
          }),
    },
    {
      id: 'codec',
      weight: VIDEO_WEIGHTS.codec,
      quality: codecOk ? 1 : 0.3,
      pillars: { presence: 1 },
      ...(codecOk
        ? {}
        : {
            suggestion: `Re-encode as H.264 (avc1): the video is ${family}, which ${platform} may reject or re-encode at lower quality`,
          }),
    },
  ];
}
