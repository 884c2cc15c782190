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

  it('migrates while other schemas of the database come and go, reading none of theirs', async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const ours = `t_${randomBytes(6).toString('hex')}`;
    const others = Array.from({ length: 8 }, () => `t_${randomBytes(6).toString('hex')}`);
    // Another schema holds a table named like the migrator's own: it must not be taken for ours.
    for (const other of others) await admin.query(`CREATE SCHEMA "${other}"; CREATE TABLE "${other}".kysely_migration (name text)`);
    let churning = true;
    const churn = (async () => {
      // Schemas dropped and made again while the migration looks up its tables.
      for (let i = 0; churning; i++) {
        const other = others[i % others.length]!;
        await admin.query(`DROP SCHEMA "${other}" CASCADE; CREATE SCHEMA "${other}"; CREATE TABLE "${other}".kysely_migration (name text)`);
      }
    })();
    const handle = await openDatabase({
      dataDir: '',
      databaseUrl: url,
      databaseSchema: ours,
      databasePoolSize: 2,
      dependencyTimeoutMs: 5000,
    });
    try {
      for (let round = 0; round < 10; round++) await migrateToLatest(handle);
      expect(await handle.db.selectFrom('users').select('id').execute()).toEqual([]);
      // What the migrator looks its tables up in: our schema's tables, and no one else's.
      const seen = await handle.db.introspection.getTables({ withInternalKyselyTables: true });
      expect(seen.map((table) => table.name)).toContain('kysely_migration');
      expect([...new Set(seen.map((table) => table.schema))]).toEqual([ours]);
    } finally {
      churning = false;
      await churn;
      await handle.close();
      for (const name of [ours, ...others]) await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      await admin.end();
    }
  });
});
