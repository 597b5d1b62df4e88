/** Content scoring studio: the analysis behind POST /v1/studio/score (no HTTP, no database). */
export { scoreContent, MAX_TEXT_CHARACTERS } from './score-content.ts';
export type { ScoreContentOptions } from './score-content.ts';
export { formatProblem, FORMATS_BY_PLATFORM } from './formats.ts';
export { StudioError } from './errors.ts';
export type { StudioErrorKind } from './errors.ts';
export { DEFAULT_MAX_MEDIA_BYTES, DEFAULT_TIMEOUTS, DEFAULT_MAX_REDIRECTS } from './safe-fetch.ts';
export type { FetchTimeouts } from './safe-fetch.ts';
export { CONTENT_TYPES, FORMATS, QUALITY_CHECKS, STUDIO_MODES } from './types.ts';
export { QUALITY_CAPS } from './text-quality.ts';
export type {
  ContentScoreInput,
  ContentScoreResult,
  ContentType,
  FeedbackItem,
  Format,
  NotJudged,
  PillarOutlook,
  QualityFlag,
  StudioMode,
} from './types.ts';
