import { DomainError, type ErrorKind, type FieldDetails } from '../../core/errors.ts';
import { ProblemError, type ProblemOptions } from './problem.ts';

interface ProblemMapping<K extends ErrorKind> {
  status: number;
  title: string;
  /** Headers, extension fields and field errors built from the error's typed details. */
  options?: (error: DomainError<K>) => ProblemOptions;
}

/** The RFC 9457 `errors` member naming the request field, when the error has one. */
function field(error: DomainError<ErrorKind>): ProblemOptions {
  const details = error.details as FieldDetails | undefined;
  return details
    ? { errors: [{ parameter: details.parameter, message: details.message ?? error.detail }] }
    : {};
}

/**
 * THE table from domain error kinds to HTTP problems (statuses and titles are the spec's; the
 * problem `type` is derived from the title). The only place a domain error meets HTTP: the error
 * handler and the idempotency store both answer through `problemFor`.
 */
export const DOMAIN_PROBLEMS: { [K in ErrorKind]: ProblemMapping<K> } = {
  invalid_parameter: { status: 400, title: 'Invalid Parameter', options: field },
  invalid_date_range: { status: 400, title: 'Invalid Date Range', options: field },
  invalid_platform: { status: 422, title: 'Invalid Platform', options: field },
  forbidden: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not Found' },
  conflict: { status: 409, title: 'Conflict' },

  no_data: { status: 404, title: 'No Data' },
  no_score_available: { status: 404, title: 'No Score Available' },

  requested_platforms_not_connected: { status: 400, title: 'Platform Not Connected', options: field },
  no_platforms_connected: { status: 422, title: 'No Platforms Connected' },
  audit_in_progress: { status: 409, title: 'Audit In Progress' },
  audit_limit_reached: {
    status: 402,
    title: 'Audit Limit Reached',
    options: ({ details: d }) => ({
      extensions: { audits_used: d.used, audits_limit: d.limit, resets_at: d.resetsAt },
    }),
  },
  too_early: {
    status: 425,
    title: 'Too Early',
    options: ({ details: d }) => ({
      headers: { 'Retry-After': String(d.retryAfterSeconds) },
      extensions: { audit_id: d.auditId, estimated_completion: d.estimatedCompletion },
    }),
  },

  platform_not_configured: { status: 503, title: 'Platform Not Configured' },
  platform_already_connected: { status: 409, title: 'Platform Already Connected' },
  platform_limit_reached: { status: 402, title: 'Platform Limit Reached' },
  platform_not_connected: { status: 404, title: 'Platform Not Connected' },
  platform_unavailable: { status: 502, title: 'Platform Unavailable' },
  reauthorization_required: { status: 409, title: 'Reauthorization Required' },
  not_connected_through_oauth: { status: 409, title: 'Not Connected Through OAuth' },
  sync_rate_limited: {
    status: 429,
    title: 'Sync Rate Limited',
    options: ({ details: d }) => ({ headers: { 'Retry-After': String(d.retryAfterSeconds) } }),
  },
  invalid_state: { status: 400, title: 'Invalid State', options: field },
  authorization_failed: { status: 400, title: 'Authorization Failed', options: field },
  consent_denied: { status: 403, title: 'Consent Denied' },
  connect_started_elsewhere: { status: 403, title: 'Connect Started Elsewhere' },
  permissions_declined: {
    status: 403,
    title: 'Permissions Declined',
    options: ({ details: d }) => ({ extensions: { missing_scopes: d.missing } }),
  },
  account_mismatch: {
    status: 409,
    title: 'Account Mismatch',
    options: ({ details: d }) => ({
      extensions: { connected_account: d.connected, authorised_accounts: d.authorised },
    }),
  },
  account_connected_elsewhere: { status: 409, title: 'Account Connected Elsewhere', options: field },
  connect_not_pending: { status: 409, title: 'Not Awaiting Selection' },

  invalid_url: { status: 400, title: 'Invalid URL', options: field },
  invalid_secret: { status: 400, title: 'Invalid Secret', options: field },
  invalid_events: {
    status: 422,
    title: 'Invalid Events',
    options: (error) => ({ ...field(error), extensions: { invalid_events: error.details.invalid } }),
  },
  webhook_limit_reached: { status: 422, title: 'Webhook Limit Reached' },
  alert_limit_reached: { status: 422, title: 'Alert Limit Reached' },
  invalid_alert_change: { status: 422, title: 'Invalid Alert Change', options: field },

  invalid_dates: { status: 400, title: 'Invalid Dates', options: field },
  campaign_completed: { status: 409, title: 'Campaign Completed' },

  // The uniform TACSI denial: same status, title, detail and headers whatever the reason.
  not_licensed: { status: 403, title: 'Not Licensed' },
  not_published: { status: 404, title: 'Not Published' },

  // Content scoring (docs/studio.md "Errors").
  invalid_content_type: { status: 400, title: 'Invalid Content Type' },
  invalid_format: { status: 400, title: 'Invalid Format', options: field },
  invalid_mode: { status: 400, title: 'Invalid Mode', options: field },
  content_too_large: { status: 413, title: 'Content Too Large' },
  media_refused: { status: 422, title: 'Media URL Refused' },
  media_unreachable: { status: 422, title: 'Media Unreachable' },
  media_unsupported: { status: 422, title: 'Unsupported Media' },
  text_too_complex: { status: 422, title: 'Text Too Complex' },
  studio_busy: {
    status: 503,
    title: 'Studio Busy',
    options: ({ details: d }) => ({ headers: { 'Retry-After': String(d.retryAfterSeconds) } }),
  },

  sign_in_failed: { status: 401, title: 'Sign-In Failed' },
  sign_in_limited: {
    status: 429,
    title: 'Too Many Sign-In Attempts',
    options: ({ details: d }) => ({ headers: { 'Retry-After': String(d.retryAfterSeconds) } }),
  },
  invalid_token: { status: 400, title: 'Invalid Token', options: field },
  csrf_failed: { status: 403, title: 'CSRF Token Missing Or Wrong' },
  passkeys_unavailable: { status: 503, title: 'Passkeys Unavailable' },
  // teams (docs/security.md "Teams and invitations")
  team_limit_reached: {
    status: 403,
    title: 'Team Limit Reached',
    options: ({ details: d }) => ({ extensions: { plan: d.plan, team_limit: d.limit } }),
  },
  last_owner: { status: 409, title: 'Last Owner' },
  invitation_unusable: {
    status: 410,
    title: 'Invitation Unusable',
    options: ({ details: d }) => ({ extensions: { reason: d.reason } }),
  },
  // single sign-on (docs/security.md "Single sign-on")
  sso_discovery_failed: { status: 422, title: 'Identity Provider Unusable', options: field },
  // reports
  invalid_logo: { status: 422, title: 'Invalid Logo', options: field },
  report_not_ready: { status: 409, title: 'Report Not Ready' },
};

/** The problem a domain error is answered with. */
export function problemFor<K extends ErrorKind>(error: DomainError<K>): ProblemError {
  const mapping = DOMAIN_PROBLEMS[error.kind] as ProblemMapping<K>;
  return new ProblemError(mapping.status, mapping.title, error.detail, mapping.options?.(error) ?? {});
}

/** A thrown value as the problem it is answered with, or null when it is not a known error. */
export function asProblem(error: unknown): ProblemError | null {
  if (error instanceof ProblemError) return error;
  if (error instanceof DomainError) return problemFor(error);
  return null;
}
