/**
 * Domain errors: what went wrong, in the domain's words, with no HTTP in them (after
 * benbjohnson/wtf's error.go). Domain code throws a DomainError of a kind from the closed set
 * below; the HTTP edge maps each kind to its status, title and extension fields in one table
 * (src/infra/http/domain-problems.ts). Each domain builds its errors where it raises them, with
 * its own detail text; the kinds live here because the domains and the edge must agree on them
 * (infra may not import a domain). `npm run deps` keeps problem.ts out of domain code.
 */

/** The request field a failure is about; `message` defaults to the error's detail. */
export interface FieldDetails {
  parameter: string;
  message?: string;
}

/**
 * Every error kind and the typed details it carries (`undefined`: none, `X | undefined`: optional).
 * Adding a kind here without a row in the edge table is a type error.
 */
export interface ErrorDetails {
  // shared by many domains
  invalid_parameter: FieldDetails & { message: string };
  invalid_date_range: FieldDetails;
  /** A platform name outside PLATFORMS (raised by the request schemas). */
  invalid_platform: FieldDetails;
  forbidden: undefined;
  not_found: undefined;
  /** The request is well formed but contradicts what is stored (held exclusively, already published, a cap). */
  conflict: undefined;
  // scoring
  no_data: undefined;
  no_score_available: undefined;
  // audits
  requested_platforms_not_connected: FieldDetails;
  no_platforms_connected: undefined;
  audit_in_progress: undefined;
  audit_limit_reached: { used: number; limit: number; resetsAt: string };
  too_early: { auditId: string; estimatedCompletion: string; retryAfterSeconds: number };
  // platforms
  platform_not_configured: undefined;
  platform_already_connected: undefined;
  platform_limit_reached: undefined;
  platform_not_connected: undefined;
  platform_unavailable: undefined;
  /** The connection waits for re-authorisation. */
  reauthorization_required: undefined;
  /** The connection holds a handle only: there is no authorisation to sync with. */
  not_connected_through_oauth: undefined;
  /** An on-demand sync inside the connection's cooldown. */
  sync_rate_limited: { retryAfterSeconds: number };
  invalid_state: FieldDetails;
  authorization_failed: FieldDetails | undefined;
  consent_denied: undefined;
  /** The callback reached a browser (or key) other than the one that started the authorisation. */
  connect_started_elsewhere: undefined;
  /** A required permission was declined at the platform. */
  permissions_declined: { missing: string[] };
  /** A reconnect authorised another account than the connection's. */
  account_mismatch: { connected: string; authorised: string[] };
  /** The account is connected to another workspace and sharing it was not confirmed. */
  account_connected_elsewhere: FieldDetails;
  /** The connect attempt is not waiting for an account to be picked. */
  connect_not_pending: undefined;
  // webhooks
  invalid_url: FieldDetails;
  invalid_secret: FieldDetails;
  invalid_events: FieldDetails & { invalid: string[] };
  webhook_limit_reached: undefined;
  // alerts
  alert_limit_reached: undefined;
  invalid_alert_change: FieldDetails;
  // campaigns
  invalid_dates: FieldDetails;
  campaign_completed: undefined;
  // tacsi
  not_licensed: undefined;
  not_published: undefined;
  // studio
  invalid_content_type: undefined;
  invalid_format: FieldDetails | undefined;
  invalid_mode: FieldDetails | undefined;
  content_too_large: undefined;
  media_refused: undefined;
  media_unreachable: undefined;
  media_unsupported: undefined;
  text_too_complex: undefined;
  studio_busy: { retryAfterSeconds: number };
  // people
  /** Wrong email or password, or an unverified address: one answer, so it tells nothing apart. */
  sign_in_failed: undefined;
  /** Too many sign-in attempts for this account or from this address. */
  sign_in_limited: { retryAfterSeconds: number };
  /** A verification or reset link that is unknown, used or expired. */
  invalid_token: FieldDetails;
  /** A cookie-authenticated state-changing request without the session's CSRF token. */
  csrf_failed: undefined;
  /** Passkeys need a relying-party id: PUBLIC_URL, or a loopback request on a developer's machine. */
  passkeys_unavailable: undefined;
  // teams
  /** The workspace's plan allows no more people: members plus pending invitations reach its team limit. */
  team_limit_reached: { plan: string; limit: number };
  /** The change would leave the workspace without an owner. */
  last_owner: undefined;
  /** An invitation token that is unknown, already accepted, revoked or expired. */
  invitation_unusable: { reason: 'unknown' | 'accepted' | 'revoked' | 'expired' };
  // single sign-on
  /** The issuer's OpenID Connect discovery document could not be fetched or is unusable. */
  sso_discovery_failed: FieldDetails;
  // reports
  /** A white-label logo that is not a PNG or JPEG, or has dimensions outside the accepted range. */
  invalid_logo: FieldDetails;
  /** The report is still being generated, or its generation failed: it has no PDF or CSV. */
  report_not_ready: undefined;
}

export type ErrorKind = keyof ErrorDetails;

type DetailsArgument<K extends ErrorKind> = undefined extends ErrorDetails[K]
  ? [details?: ErrorDetails[K]]
  : [details: ErrorDetails[K]];

export class DomainError<K extends ErrorKind = ErrorKind> extends Error {
  readonly kind: K;
  /** Human-readable explanation, safe to show to the caller. */
  readonly detail: string;
  readonly details: ErrorDetails[K];

  constructor(kind: K, detail: string, ...[details]: DetailsArgument<K>) {
    super(`${kind}: ${detail}`);
    this.name = 'DomainError';
    this.kind = kind;
    this.detail = detail;
    this.details = details as ErrorDetails[K];
  }
}

/** A request field that is not acceptable: `parameter: message`. */
export function invalidParameter(parameter: string, message: string): DomainError<'invalid_parameter'> {
  return new DomainError('invalid_parameter', `${parameter}: ${message}`, { parameter, message });
}
