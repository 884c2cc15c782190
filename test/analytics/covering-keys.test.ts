import { CompiledQuery, sql, type KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { dailyRows, monthlyDimensionTotals } from '../../src/features/analytics/reports.repository.js';
import { builtScopeMonths, builtTagMonths, scopeDaySetRevisions } from '../../src/features/analytics/visitor-sets.repository.js';
import { useAnalyticsApp } from './support.js';

/** The one query `read` runs, compiled, as the database is sent it. */
async function queryOf(db: Db, read: (db: Db) => Promise<unknown>): Promise<CompiledQuery> {
  const executor = db.getExecutor();
  const queries: CompiledQuery[] = [];
  const capture: KyselyPlugin = {
    transformQuery: ({ node, queryId }) => {
      queries.push(executor.compileQuery(node, queryId));
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  await read(db.withPlugin(capture));
  expect(queries).toHaveLength(1);
  return queries[0]!;
}

/**
 * Migration 0032: on PostgreSQL, a tag report reads its days' counts and its months' breakdowns
 * from the primary keys alone (index-only scans), not from heap pages scattered over the
 * tables. The plans are asked with the other scans off, so the test holds on tables of a few
 * rows: it fails when a report reads a column the key does not carry. On SQLite, a tag's days
 * are read from tag_daily's own B-tree, clustered by its primary key.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('covering rollup keys on PostgreSQL', () => {
  const t = useAnalyticsApp();

  /** The plan PostgreSQL makes for the one query `read` runs, with every scan but index-only ones off. */
  async function planOf(read: (db: Db) => Promise<unknown>): Promise<string> {
    const { sql: text, parameters } = await queryOf(t.database.db, read);
    const literal = (n: string) => `'${String(parameters[Number(n) - 1]).replaceAll("'", "''")}'`;
    return t.database.db.transaction().execute(async (trx) => {
      for (const scan of ['seqscan', 'bitmapscan', 'indexscan']) await sql.raw(`SET LOCAL enable_${scan} = off`).execute(trx);
      const { rows } = await sql
        .raw<{ 'QUERY PLAN': string }>(`EXPLAIN ${text.replace(/\$(\d+)/g, (_, n: string) => literal(n))}`)
        .execute(trx);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  }

  it("keys carry the counts of a tag's days and the views of its months' breakdowns", async () => {
    const range = { from: '2026-01-01', to: '2027-01-01' };
    expect(await planOf((db) => dailyRows(db, 'tag_x', range))).toContain('Index Only Scan using tag_daily_pk');
    expect(await planOf((db) => monthlyDimensionTotals(db, 'tag_x', range))).toContain('Index Only Scan using tag_monthly_dimensions_pk');
  });
});

describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('tag_daily clustered on SQLite', () => {
  const t = useAnalyticsApp();

  it("reads a tag's days from the table's primary key, its indexes kept", async () => {
    const db = t.database.db;
    const { sql: text, parameters } = db
      .selectFrom('tag_daily')
      .select(['day', 'views'])
      .where('tag_id', '=', 'tag_x')
      .where('day', '>=', '2026-01-01')
      .where('day', '<', '2027-01-01')
      .compile();
    const { rows: plan } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${text}`, [...parameters]));
    expect(plan.map((row) => row.detail).join('\n')).toMatch(/SEARCH tag_daily USING PRIMARY KEY/);
    const { rows } = await sql<{
      name: string;
    }>`SELECT name FROM sqlite_master WHERE tbl_name = 'tag_daily' AND type = 'index' ORDER BY name`.execute(db);
    expect(rows.map((row) => row.name)).toEqual(['tag_daily_org_idx', 'tag_daily_owner_idx']);
  });
});

/**
 * Migration 0034: on SQLite, a report learns the revisions of the visitor sets it may already
 * hold from indexes. The revisions follow the sets in their rows, and SQLite reaches a column
 * past an overflowing value only through the value's overflow pages: a busy tag's year of
 * month sets is hundreds of pages read to learn a dozen revisions.
 */
describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('visitor set revisions read from indexes on SQLite', () => {
  const t = useAnalyticsApp();

  async function planOf(read: (db: Db) => Promise<unknown>): Promise<string> {
    const { sql: text, parameters } = await queryOf(t.database.db, read);
    const { rows } = await t.database.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${text}`, [...parameters]));
    return rows.map((row) => row.detail).join('\n');
  }

  it("reads the tags' and the scopes' set revisions without the sets' pages", async () => {
    const scope = { environment: 'live' as const, userId: 'usr_x', organizationId: null };
    expect(await planOf((db) => builtTagMonths(db, 'tag_x', ['2026-01-01', '2026-02-01']))).toMatch(
      /USING COVERING INDEX tag_month_visitors_revision_idx/,
    );
    expect(await planOf((db) => builtScopeMonths(db, scope, { from: '2026-01-01', to: '2027-01-01' }))).toMatch(
      /USING COVERING INDEX scope_month_visitors_revision_idx/,
    );
    expect(await planOf((db) => scopeDaySetRevisions(db, scope, { from: '2026-01-01', to: '2027-01-01' }))).toMatch(
      /USING COVERING INDEX scope_day_visitors_revision_idx/,
    );
  });
});
