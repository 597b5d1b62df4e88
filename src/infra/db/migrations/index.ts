import type { Migration } from 'kysely/migration';
import * as m0001 from './0001_initial.ts';
import * as m0020 from './0020_campaign_lifecycle.ts';
import * as m0030a from './0030_sealed_secrets.ts';
import * as m0030 from './0030_tacsi_m2.ts';
import * as m0031 from './0031_sandbox_keys.ts';
import * as m0032 from './0032_work_ownership.ts';
import * as m0040 from './0040_audit_durations.ts';
import * as m0050 from './0050_platform_oauth.ts';
import * as m0051 from './0051_platform_sync.ts';
import * as m0060 from './0060_formula_v2.ts';
import * as m0061 from './0061_sentiment_provenance.ts';
import * as m0062 from './0062_score_change_notify.ts';
import * as m0063 from './0063_export_change_notify.ts';
import * as m0064 from './0064_workspace_sync_version.ts';
import * as m0065 from './0065_engagement_dating.ts';
import * as m0066 from './0066_connection_health.ts';
import * as m0067 from './0067_connect_attempts.ts';
import * as m0068 from './0068_tacsi_one_ledger.ts';
import * as m0069 from './0069_idempotency_lease.ts';
import * as m0070 from './0070_tacsi_vintages.ts';
import * as m0071 from './0071_drop_workspace_sync_version.ts';
import * as m0072 from './0072_people_sessions.ts';
import * as m0073 from './0073_audit_log.ts';
import * as m0074 from './0074_annotations.ts';
import * as m0075 from './0075_formula_v3.ts';
import * as m0076 from './0076_alerts.ts';
import * as m0077 from './0077_reports.ts';
import * as m0078 from './0078_score_drivers.ts';
import * as m0079 from './0079_alert_enabled.ts';
import * as m0080 from './0080_teams.ts';
import * as m0081 from './0081_webhook_loopback_http.ts';
import * as m0082 from './0082_passkeys.ts';
import * as m0083 from './0083_audit_log_detail.ts';
import * as m0084 from './0084_sso.ts';
import * as m0085 from './0085_comments_deleted.ts';
import * as m0086 from './0086_post_comment_counts.ts';
import * as m0087 from './0087_comment_authors.ts';
import * as m0088 from './0088_sector_benchmark_industry.ts';

/** Every migration, in order. Names sort lexically; add new ones at the end. */
export const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0020_campaign_lifecycle': m0020,
  '0030_sealed_secrets': m0030a,
  '0030_tacsi_m2': m0030,
  '0031_sandbox_keys': m0031,
  '0032_work_ownership': m0032,
  '0040_audit_durations': m0040,
  '0050_platform_oauth': m0050,
  '0051_platform_sync': m0051,
  '0060_formula_v2': m0060,
  '0061_sentiment_provenance': m0061,
  '0062_score_change_notify': m0062,
  '0063_export_change_notify': m0063,
  '0064_workspace_sync_version': m0064,
  '0065_engagement_dating': m0065,
  '0066_connection_health': m0066,
  '0067_connect_attempts': m0067,
  '0068_tacsi_one_ledger': m0068,
  '0069_idempotency_lease': m0069,
  '0070_tacsi_vintages': m0070,
  '0071_drop_workspace_sync_version': m0071,
  '0072_people_sessions': m0072,
  '0073_audit_log': m0073,
  '0074_annotations': m0074,
  '0075_formula_v3': m0075,
  '0076_alerts': m0076,
  '0077_reports': m0077,
  '0078_score_drivers': m0078,
  '0079_alert_enabled': m0079,
  '0080_teams': m0080,
  '0081_webhook_loopback_http': m0081,
  '0082_passkeys': m0082,
  '0083_audit_log_detail': m0083,
  '0084_sso': m0084,
  '0085_comments_deleted': m0085,
  '0086_post_comment_counts': m0086,
  '0087_comment_authors': m0087,
  '0088_sector_benchmark_industry': m0088,
};
