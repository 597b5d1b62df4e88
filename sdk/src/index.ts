export {
  AuditTimeoutError,
  type Alert,
  type AlertEpisode,
  type CreateAlertBody,
  createBrandHealthClient,
  ScoreLogGapError,
  type AuditResult,
  type AuditRunBody,
  type AuditStart,
  type AuditSummary,
  type BrandHealthClient,
  type BrandHealthOptions,
  type Campaign,
  type LicensedSector,
  type Ok,
  type PageOptions,
  type RunAuditOptions,
  type ScoreLogOptions,
  type ScoreLogRow,
  type TacsiHistoryRow,
  type WaitOptions,
} from './client.ts';
export { ProblemError, unwrap, type ProblemParameter } from './problem.ts';
export type { RetryOptions } from './retry.ts';
export {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEnvelope,
  type WebhookEvent,
  type WebhookHeaders,
} from './webhooks.ts';
export type { components, paths, webhooks } from './schema.js';
