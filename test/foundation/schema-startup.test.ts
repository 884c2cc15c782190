import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';

/**
 * Processes that start together with a new DATABASE_SCHEMA all create it: CREATE SCHEMA IF
 * NOT EXISTS races in PostgreSQL's catalog, and the losers must carry on, not crash.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('opening a new PostgreSQL schema from many processes at once', () => {
  const url = process.env.TEST_DATABASE_URL!;

  it('every openDatabase succeeds, in each of several rounds', async () => {
    for (let round = 0; round < 5; round++) {
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const config = { dataDir: '', databaseUrl: url, databaseSchema: schema, databasePoolSize: 2, dependencyTimeoutMs: 5000 };
      const results = await Promise.allSettled(Array.from({ length: 12 }, () => openDatabase(config)));
      const handles = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      try {
        expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
        await Promise.all(handles.map((handle) => migrateToLatest(handle)));
        for (const handle of handles) expect(await handle.db.selectFrom('users').select('id').execute()).toEqual([]);
      } finally {
        await Promise.all(handles.map((handle) => handle.close()));
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
    }
  });
});
