import { v3ScoreFields } from '../scoring/v3-fields.ts';
import { gradeRange } from '../scoring/grading.ts';
import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { AuditList, AuditListItem, CompletedAudit, FailedAudit } from './schemas.ts';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';
import { currentlyManaged, visibleTo } from '../workspaces/tenancy.ts';
import type { AuditStatus, DB } from '../infra/db/types.ts';
import { DomainError } from '../core/errors.ts';
import type { AuthenticityFlagV3, CompositeGrade, Recommendation } from '../scoring/engine/index.ts';
import { servedBenchmark } from './benchmark.ts';
import type { StoredPillars } from './complete.ts';
import { retryAfterSeconds } from './policy.ts';
import { PILLARS } from '../core/catalog.ts';
import type { TimelineSource } from '../annotations/timeline-types.ts';
import { serviceEntry } from '../annotations/timeline.ts';

/** The audit endpoints' answers: their response schemas' types, so the two cannot drift. */
export type CompletedAuditView = Static<typeof CompletedAudit>;

export type FailedAuditView = Static<typeof FailedAudit>;

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
          grade_range: gradeRange({ low: audit.score_low, high: audit.score_high }),
          stale: audit.stale ?? false,
          latest_data_day: audit.latest_data_day,
          authenticity_flags: (audit.authenticity_flags as AuthenticityFlagV3[] | null) ?? [],
        }
      : {};
  return {
    audit_id: audit.id,
    status: 'completed',
    completed_at: audit.completed_at!.toISOString(),
    workspace_id: audit.workspace_id,
    score: audit.score!,
    // Written with the score in the update that completes the audit (complete.ts); the column's CHECK is the enum.
    grade: audit.grade as CompositeGrade,
    formula_version: audit.formula_version ?? '',
    ...v2,
    ...v3ScoreFields(audit.crisis, audit.baseline_version, audit.drivers),
    pillars,
    recommendations: audit.recommendations as Recommendation[],
    industry_benchmark: servedBenchmark(audit.industry_benchmark, audit.score!),
  };
}

export type AuditListItemView = Static<typeof AuditListItem>;

export type AuditListView = Static<typeof AuditList>;

/**
 * The audits of one workspace the key may see, newest first. The tenant boundary is in the query:
 * the workspace must be visible to the key (`visibleTo`, so an invisible id lists nothing) and each
 * audit's creator must still manage it (`currentlyManaged`), as for GET /v1/audit/{id}, so a
 * client never lists the audits its old agency ran and that agency no longer sees the client's.
 */
export async function listAudits(
  db: Kysely<DB>,
  principal: WorkspacePrincipal,
  workspaceId: string,
  filter: { status: AuditStatus | undefined; limit: number; offset: number },
): Promise<AuditListView> {
  let base = db
    .selectFrom('audits')
    .innerJoin('workspaces', 'workspaces.id', 'audits.workspace_id')
    .where('audits.workspace_id', '=', workspaceId)
    .where(visibleTo(principal.workspaceId))
    .where(currentlyManaged('audits.created_by'));
  if (filter.status) base = base.where('audits.status', '=', filter.status);
  const [rows, count] = await Promise.all([
    base
      .select([
        'audits.id',
        'audits.status',
        'audits.workspace_id',
        'audits.created_at',
        'audits.platforms',
        'audits.lookback_days',
        'audits.estimated_completion',
        'audits.completed_at',
        'audits.score',
        'audits.grade',
        'audits.formula_version',
        'audits.failure_reason',
      ])
      .orderBy('audits.created_at', 'desc')
      .orderBy('audits.id', 'desc')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    audits: rows.map((a) => {
      const finishedAt = (a.completed_at ?? a.created_at).toISOString();
      return {
        audit_id: a.id,
        status: a.status,
        workspace_id: a.workspace_id,
        created_at: a.created_at.toISOString(),
        platforms_included: a.platforms,
        lookback_days: a.lookback_days,
        estimated_completion: a.status === 'processing' ? a.estimated_completion.toISOString() : null,
        completed_at: a.status === 'completed' ? finishedAt : null,
        // As GET /v1/audit/{id} reports it.
        failed_at: a.status === 'failed' ? finishedAt : null,
        score: a.status === 'completed' ? a.score : null,
        grade: a.status === 'completed' ? a.grade : null,
        formula_version: a.status === 'completed' ? a.formula_version : null,
        failure_reason: a.status === 'failed' ? (a.failure_reason ?? 'The audit failed.') : null,
      };
    }),
    total: Number(count.n),
    limit: filter.limit,
    offset: filter.offset,
  };
}

/** A completed audit as a scheduled report lists it (docs/reports.md). */
export interface CompletedAuditSummary {
  audit_id: string;
  completed_at: string;
  score: number;
  grade: string | null;
  recommendations: Recommendation[];
}

/**
 * The workspace's audits that completed in [from, to), oldest first, whose creator still manages
 * the workspace (as GET /v1/audit/{id}): the audits a scheduled report of that period shows (at most
 * 50), and the history chart's audit markers.
 */
export async function completedAuditsBetween(
  db: Kysely<DB>,
  workspaceId: string,
  from: Date,
  to: Date,
  limit = 50,
): Promise<CompletedAuditSummary[]> {
  const rows = await db
    .selectFrom('audits')
    .innerJoin('workspaces', 'workspaces.id', 'audits.workspace_id')
    .select(['audits.id', 'audits.completed_at', 'audits.score', 'audits.grade', 'audits.recommendations'])
    .where('audits.workspace_id', '=', workspaceId)
    .where('audits.status', '=', 'completed')
    .where('audits.completed_at', '>=', from)
    .where('audits.completed_at', '<', to)
    .where(currentlyManaged('audits.created_by'))
    .orderBy('audits.completed_at')
    .orderBy('audits.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    audit_id: r.id,
    completed_at: (r.completed_at ?? new Date(0)).toISOString(),
    score: Number(r.score ?? 0),
    grade: r.grade,
    recommendations: Array.isArray(r.recommendations) ? (r.recommendations as Recommendation[]) : [],
  }));
}

/** Most completed audits one timeline shows (the oldest first). */
export const MAX_TIMELINE_AUDITS = 1000;

/** The audits domain's timeline entries: each completed audit the reader would see, on its day. */
export const auditsOnTimeline: TimelineSource = async (db, workspaceId, range) =>
  (await completedAuditsBetween(db, workspaceId, range.from, range.to, MAX_TIMELINE_AUDITS)).flatMap((a) => {
    const entry = serviceEntry(range, new Date(a.completed_at), {
      text: `Audit completed: score ${a.score.toFixed(1)}${a.grade ? ` (${a.grade})` : ''}`,
      category: 'other',
      kind: 'audit_completed',
      ref: a.audit_id,
    });
    return entry ? [entry] : [];
  });
