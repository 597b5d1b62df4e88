import { StudioError } from './errors.ts';
import { formatProblem } from './formats.ts';
import { imageSignals } from './image-analysis.ts';
import { ImageProbe, Mp4Probe } from './media-probe.ts';
import { DEFAULT_MAX_MEDIA_BYTES, fetchMedia } from './safe-fetch.ts';
import type { FetchTimeouts } from './safe-fetch.ts';
import { summarise, type Judgement } from './signals.ts';
import { characterCount } from './text-entities.ts';
import { notJudgedChecks, textSignals } from './text-analysis.ts';
import { TEXT_CPU_BUDGET_MS, textPool } from './text-pool.ts';
import { CONTENT_TYPES, STUDIO_MODES } from './types.ts';
import type { ContentScoreInput, ContentScoreResult, Format } from './types.ts';
import { videoSignals } from './video-analysis.ts';
import type { Platform } from '../core/catalog.ts';

/** Spec limit on text content (413 above it), counted in Unicode code points. */
export const MAX_TEXT_CHARACTERS = 10_000;

export interface ScoreContentOptions {
  /** Let media URLs point at 127.0.0.0/8 or ::1. Tests only (STUDIO_ALLOW_LOOPBACK_FETCH). */
  allowLoopback?: boolean;
  /** Media size cap in bytes; default 100 MB (the spec's limit). */
  maxMediaBytes?: number;
  timeouts?: Partial<FetchTimeouts>;
  /** Default 3. */
  maxRedirects?: number;
  /** Replaces the system DNS resolver (tests). */
  resolve?: (hostname: string) => Promise<string[]>;
  /** CPU time a text's analysis may take on its worker thread; default TEXT_CPU_BUDGET_MS (2 s). */
  textCpuBudgetMs?: number;
}

/**
 * Scores text, an image URL or a video URL for a platform and format. The result depends
 * only on the text or the fetched bytes (and, for images, the declared size), so the same
 * input always gives the same output. Throws StudioError; see STUDIO_ERROR_STATUS.
 */
export async function scoreContent(
  input: ContentScoreInput,
  options: ScoreContentOptions = {},
): Promise<ContentScoreResult> {
  const platform: Platform = input.platform;
  const format: Format = input.format ?? 'post';
  const problem = formatProblem(platform, format);
  if (problem) throw new StudioError('invalid_format', problem);
  if (!(CONTENT_TYPES as readonly string[]).includes(input.content_type)) {
    throw new StudioError('invalid_content_type', `content_type must be one of ${CONTENT_TYPES.join(', ')}`);
  }
  if (typeof input.content !== 'string')
    throw new StudioError('invalid_content_type', 'content must be a string');
  if (input.mode !== undefined && !(STUDIO_MODES as readonly string[]).includes(input.mode))
    throw new StudioError('invalid_mode', `mode must be one of ${STUDIO_MODES.join(', ')}`);
  // Media carry no words to detect a notice from: the caller's mode, else standard.
  const media: Judgement = {
    mode: input.mode ?? 'standard',
    modeSource: input.mode === undefined ? 'default' : 'request',
    language: null,
    // Only the container is read (size, ratio, type, duration, codec): what it shows is not judged.
    notJudged: [{ check: 'visual_content', reason: 'not_analysed' }],
  };

  if (input.content_type === 'text') {
    const characters = characterCount(input.content);
    if (characters > MAX_TEXT_CHARACTERS) {
      throw new StudioError(
        'content_too_large',
        `text is ${characters.toLocaleString('en-US')} characters, the limit is ${MAX_TEXT_CHARACTERS.toLocaleString('en-US')}`,
      );
    }
    // Measured on a worker thread, within a CPU budget: the event loop never waits for it.
    const measured = await textPool().measure(input.content, options.textCpuBudgetMs ?? TEXT_CPU_BUDGET_MS);
    const mode = input.mode ?? (measured.announcement ? 'announcement' : 'standard');
    const announcement = mode === 'announcement';
    return summarise(textSignals(measured, platform, format, announcement), platform, format, {
      mode,
      modeSource: input.mode === undefined ? 'detected' : 'request',
      language: measured.language,
      notJudged: notJudgedChecks(measured, announcement),
    });
  }

  const fetchOptions = {
    allowLoopback: options.allowLoopback === true,
    maxBytes: options.maxMediaBytes ?? DEFAULT_MAX_MEDIA_BYTES,
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    ...(options.maxRedirects !== undefined ? { maxRedirects: options.maxRedirects } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
  };
  if (input.content_type === 'image') {
    const probe = new ImageProbe();
    const outcome = await fetchMedia(input.content, probe, fetchOptions);
    return summarise(
      imageSignals(probe.result(), outcome.declaredBytes, platform, format),
      platform,
      format,
      media,
    );
  }
  const probe = new Mp4Probe();
  await fetchMedia(input.content, probe, fetchOptions);
  return summarise(videoSignals(probe.result(), platform, format), platform, format, media);
}
