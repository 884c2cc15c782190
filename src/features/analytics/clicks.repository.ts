import { CompiledQuery } from 'kysely';
import { isPostgres, type Db } from '../../db/database.js';
import { preparedOnPostgres } from '../../perf/pg-prepared-statements.js';
import type { Range } from './reports.repository.js';

/** Link clicks: a group stored, and a tag's clicks counted. */

/**
 * A group of clicks, given as one JSON array of [tag_id, block_id, occurred_at, visitor]
 * records: one statement of one parameter whatever the group's size (a bound parameter per
 * column costs more than the whole serialization, view-record.ts), and the group's tags, each
 * once. Each click takes its scope from its tag's row, looked up once a group. A click whose tag
 * is gone (the redirect found it just before its deletion) is left out, as the tag's other
 * clicks went. On PostgreSQL the tags' rows are held (FOR KEY SHARE, src/db/locks.ts, 3.) until
 * the group commits: a deletion in progress is waited for and its tag then skipped, and a
 * deletion that comes after waits for the group and deletes its clicks with the others
 * (tag-dependent.repository.ts). Without the lock a click committed just after its tag's
 * deletion would outlive it.
 */
function insertClicks(postgres: boolean, returning: boolean): string {
  const tail = returning ? ' RETURNING tag_id' : '';
  if (!postgres) {
    return `INSERT INTO link_clicks (tag_id, block_id, occurred_at, visitor, scope_id)
    SELECT c.value->>0, c.value->>1, c.value->>2, c.value->>3, coalesce(t.organization_id, t.owner_id)
    FROM json_each(?) AS c JOIN tags t ON t.id = c.value->>0${tail}`;
  }
  return `WITH t AS MATERIALIZED (
      SELECT id, coalesce(organization_id, owner_id) AS scope_id FROM tags WHERE id = ANY($2::text[]) ORDER BY id FOR KEY SHARE
    )
    INSERT INTO link_clicks (tag_id, block_id, occurred_at, visitor, scope_id)
    SELECT c.value->>0, c.value->>1, c.value->>2, c.value->>3, t.scope_id
    FROM jsonb_array_elements($1::jsonb) AS c(value) JOIN t ON t.id = c.value->>0${tail}`;
}

const INSERT = {
  postgres: preparedOnPostgres(insertClicks(true, false)),
  sqlite: insertClicks(false, false),
  postgresReturning: preparedOnPostgres(insertClicks(true, true)),
  sqliteReturning: insertClicks(false, true),
};

/** A group's clicks as insertClicks takes them: its records, and its tags (each once). */
export interface ClickGroup {
  records: string;
  tagIds: string[];
}

const parameters = (db: Db, group: ClickGroup) => (isPostgres(db) ? [group.records, group.tagIds] : [group.records]);

/** Stores a group of clicks (see insertClicks). */
export async function storeClicks(db: Db, group: ClickGroup): Promise<void> {
  await db.executeQuery(CompiledQuery.raw(isPostgres(db) ? INSERT.postgres : INSERT.sqlite, parameters(db, group)));
}

/** Stores a group of clicks; returns the tags whose clicks were stored (those not deleted meanwhile). */
export async function storeClicksOfTags(db: Db, group: ClickGroup): Promise<Set<string>> {
  const { rows } = await db.executeQuery<{ tag_id: string }>(
    CompiledQuery.raw(isPostgres(db) ? INSERT.postgresReturning : INSERT.sqliteReturning, parameters(db, group)),
  );
  return new Set(rows.map((row) => row.tag_id));
}

/** Clicks and distinct visitors per block of the tag in [from, to), through (tag_id, occurred_at). */
export function clicksByBlock(db: Db, tagId: string, range: Range) {
  return db
    .selectFrom('link_clicks')
    .select((eb) => [
      'block_id',
      eb.fn.countAll<number | string>().as('clicks'),
      eb.fn.count<number | string>('visitor').distinct().as('unique_clicks'),
    ])
    .where('tag_id', '=', tagId)
    .where('occurred_at', '>=', range.from)
    .where('occurred_at', '<', range.to)
    .groupBy('block_id')
    .execute();
}
