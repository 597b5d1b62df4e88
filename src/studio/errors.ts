/**
 * Failures of content scoring that the HTTP route turns into problem responses. The module
 * itself knows nothing about HTTP; STUDIO_ERROR_STATUS is the agreed mapping.
 */
export type StudioErrorKind =
  | 'invalid_content_type'
  | 'invalid_format'
  | 'invalid_mode'
  | 'content_too_large'
  | 'media_refused'
  | 'media_unreachable'
  | 'media_unsupported';

export class StudioError extends Error {
  readonly kind: StudioErrorKind;
  /** Human-readable explanation, safe to show to the caller (never contains resolved private addresses). */
  readonly detail: string;

  constructor(kind: StudioErrorKind, detail: string) {
    super(`${kind}: ${detail}`);
    this.name = 'StudioError';
    this.kind = kind;
    this.detail = detail;
  }
}

/** HTTP status and problem title for each kind; documented in docs/studio.md. */
export const STUDIO_ERROR_STATUS: Record<StudioErrorKind, { status: number; title: string }> = {
  invalid_content_type: { status: 400, title: 'Invalid Content Type' },
  invalid_format: { status: 400, title: 'Invalid Format' },
  invalid_mode: { status: 400, title: 'Invalid Mode' },
  content_too_large: { status: 413, title: 'Content Too Large' },
  media_refused: { status: 422, title: 'Media URL Refused' },
  media_unreachable: { status: 422, title: 'Media Unreachable' },
  media_unsupported: { status: 422, title: 'Unsupported Media' },
};
