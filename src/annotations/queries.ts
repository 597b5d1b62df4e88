import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../infra/db/types.ts';

type Db = Kysely<DB> | Transaction<DB>;

const COLUMNS = ['id', 'workspace_id', 'day', 'text', 'category', 'author', 'created_at'] as const;

export async function insertAnnotation(
  db: Db,
  row: {
    id: string;
    workspaceId: string;
    day: string;
    text: string;
    category: string;
    author: string | null;
    createdAt: Date;
  },
) {
  return db
    .insertInto('annotations')
    .values({
      id: row.id,
      workspace_id: row.workspaceId,
      day: row.day,
      text: row.text,
      category: row.category,
      author: row.author,
      created_at: row.createdAt,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/** The workspace's annotations between two days (inclusive), oldest first. */
export async function listAnnotations(db: Db, workspaceId: string, from: string, to: string) {
  return db
    .selectFrom('annotations')
    .select(COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .orderBy('day')
    .orderBy('id')
    .execute();
}

export async function deleteAnnotation(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const r = await db
    .deleteFrom('annotations')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
