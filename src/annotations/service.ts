import type { Static } from 'typebox';
import type { AppContext } from '../context.ts';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';
import { DomainError } from '../core/errors.ts';
import { addDays, daysBetween, parseDay, utcDay } from '../core/days.ts';
import { newId } from '../infra/ids.ts';
import * as q from './queries.ts';
import type { Annotation, ANNOTATION_CATEGORIES } from './schemas.ts';

export type AnnotationResource = Static<typeof Annotation>;
type Category = (typeof ANNOTATION_CATEGORIES)[number];

/** Longest window one list returns, in days. */
export const MAX_LIST_DAYS = 3660;

function toResource(row: Awaited<ReturnType<typeof q.insertAnnotation>>): AnnotationResource {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    day: row.day,
    text: row.text,
    category: row.category as Category,
    author: row.author,
    created_at: row.created_at.toISOString(),
  };
}

function requireValidDay(day: string, parameter: string): void {
  if (parseDay(day) === null) {
    throw new DomainError('invalid_parameter', `${parameter} must be a calendar day (YYYY-MM-DD).`, {
      parameter,
      message: `not a calendar day: ${JSON.stringify(day)}`,
    });
  }
}

export async function createAnnotation(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  input: { day: string; text: string; category?: Category; author?: string },
): Promise<AnnotationResource> {
  requireValidDay(input.day, 'day');
  const text = input.text.trim();
  if (text.length === 0) {
    throw new DomainError('invalid_parameter', 'text must not be blank.', {
      parameter: 'text',
      message: 'blank',
    });
  }
  const row = await q.insertAnnotation(ctx.db, {
    id: newId('ann'),
    workspaceId: principal.workspaceId,
    day: input.day,
    text,
    category: input.category ?? 'note',
    author: input.author?.trim() || null,
    createdAt: ctx.now(),
  });
  return toResource(row);
}

/** The workspace's own annotations in [from, to]; by default the last 365 days up to today. */
export async function listAnnotations(
  ctx: AppContext,
  workspaceId: string,
  range: { from?: string; to?: string },
): Promise<AnnotationResource[]> {
  if (range.from !== undefined) requireValidDay(range.from, 'from');
  if (range.to !== undefined) requireValidDay(range.to, 'to');
  const to = range.to ?? utcDay(ctx.now());
  const from = range.from ?? addDays(to, -365);
  if (from > to) {
    throw new DomainError('invalid_date_range', 'from must not be after to.', {
      parameter: 'from',
      message: 'after to',
    });
  }
  if (daysBetween(from, to) >= MAX_LIST_DAYS) {
    throw new DomainError('invalid_date_range', `A list covers at most ${MAX_LIST_DAYS} days.`, {
      parameter: 'from',
      message: `more than ${MAX_LIST_DAYS} days before to`,
    });
  }
  return (await q.listAnnotations(ctx.db, workspaceId, from, to)).map(toResource);
}

export async function deleteAnnotation(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  id: string,
): Promise<void> {
  if (!(await q.deleteAnnotation(ctx.db, principal.workspaceId, id))) {
    throw new DomainError('not_found', `No annotation "${id}" is visible to this API key.`);
  }
}
