import type { Kysely } from 'kysely';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';
import { currentlyManaged, visibleTo } from '../workspaces/tenancy.ts';
import type { DB } from '../infra/db/types.ts';
import { DomainError } from '../core/errors.ts';
import type { AuthenticityFlag, Interval, Recommendation } from '../scoring/engine/index.ts';
import type { IndustryBenchmark } from './benchmark.ts';
import type { StoredPillars } from './complete.ts';
import { retryAfterSeconds } from './policy.ts';
import { PILLARS } from '../core/catalog.ts';

export interface CompletedAuditView {
  audit_id: string;
  status: 'completed';
  completed_at: string;
  workspace_id: string;
  score: number;
  grade: string;
  formula_version: string;
  /** Formula v2 extension fields; absent on v1 audits. */
  interval?: Interval;
  stale?: boolean;
  latest_data_day?: string | null;
  authenticity_flags?: AuthenticityFlag[];
  pillars: Record<string, { score: number; change: string; grade: string; interval?: Interval }>;
  recommendations: Recommendation[];
  industry_benchmark: IndustryBenchmark;
}

export interface FailedAuditView {
  audit_id: string;
  status: 'failed';
  failed_at: string;
  workspace_id: string;
  failure_reason: string;
}

/**
 * An audit visible to the key (tenant check inside the query). Unknown and other tenants' ids
 * are the same 404; a processing audit is 425 Too Early with Retry-After until its estimate.
 */
export async function readAudit(
  db: Kysely<DB>,
  principal: WorkspacePrincipal,
  auditId: string,
  now: Date,
): Promise<CompletedAuditView | FailedAuditView> {
  const audit = await db
    .selectFrom('audits')
    .innerJoin('workspaces', 'workspaces.id', 'audits.workspace_id')
    .selectAll('audits')
    .where('audits.id', '=', auditId)
    .where(visibleTo(principal.workspaceId))
    // An audit another agency started stays that agency's after the client moves (tenancy.ts).
    .where(currentlyManaged('audits.created_by'))
    .executeTakeFirst();
  if (!audit) throw new DomainError('not_found', `No audit "${auditId}" is visible to this API key.`);

  if (audit.status === 'processing') {
    const wait = retryAfterSeconds(audit.estimated_completion, now);
    const estimatedCompletion = audit.estimated_completion.toISOString();
    throw new DomainError(
      'too_early',
      `Audit ${audit.id} is still processing; its estimated completion is ${estimatedCompletion}.`,
      { auditId: audit.id, estimatedCompletion, retryAfterSeconds: wait },
    );
  }
  if (audit.status === 'failed') {
    return {
      audit_id: audit.id,
      status: 'failed',
      failed_at: (audit.completed_at ?? audit.created_at).toISOString(),
      workspace_id: audit.workspace_id,
      failure_reason: audit.failure_reason ?? 'The audit failed.',
    };
  }
  const stored = audit.pillars as StoredPillars;
  const pillars: CompletedAuditView['pillars'] = {};
  for (const k of PILLARS) {
    const p = stored[k];
    pillars[k] = {
      score: p.score,
      change: p.change,
      grade: p.grade,
      ...(p.interval ? { interval: p.interval } : {}),
    };
  }
  const v2 =
    audit.score_low !== null && audit.score_high !== null
      ? {
          interval: { low: audit.score_low, high: audit.score_high },
          stale: audit.stale ?? false,
          latest_data_day: audit.latest_data_day,
          authenticity_flags: (audit.authenticity_flags as AuthenticityFlag[] | null) ?? [],
        }
      : {};
  return {
    audit_id: audit.id,
    status: 'completed',
    completed_at: audit.completed_at!.toISOString(),
    workspace_id: audit.workspace_id,
    score: audit.score!,
    grade: audit.grade ?? '',
    formula_version: audit.formula_version ?? '',
    ...v2,
    pillars,
    recommendations: audit.recommendations as Recommendation[],
    industry_benchmark: audit.industry_benchmark as IndustryBenchmark,
  };
}
