import { DomainError, type ErrorDetails } from '../core/errors.ts';

/**
 * Failures of content scoring. The module knows nothing about HTTP: the edge table
 * (src/infra/http/domain-problems.ts) gives each kind its status and title, listed in docs/studio.md.
 */
export type StudioErrorKind =
  | 'invalid_content_type'
  | 'invalid_format'
  | 'invalid_mode'
  | 'content_too_large'
  | 'media_refused'
  | 'media_unreachable'
  | 'media_unsupported'
  | 'text_too_complex'
  | 'studio_busy';

export class StudioError extends DomainError<StudioErrorKind> {
  /** `detail` is safe to show to the caller (never contains resolved private addresses). */
  constructor(kind: StudioErrorKind, detail: string, details?: ErrorDetails[StudioErrorKind]) {
    super(kind, detail, details);
    this.name = 'StudioError';
  }
}
