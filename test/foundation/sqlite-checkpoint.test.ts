import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE } from '../../src/db/database.js';
import { createAccount, request, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/receiver.js';

/**
 * The write-ahead log's position, read from the WAL index (the -shm file; sqlite.org/walformat):
 * the frames committed (mxFrame, offset 16) and those copied back into the database file by a
 * checkpoint (nBackfill, offset 96). Read from the file, so that reading checkpoints nothing.
 */
function walPosition(t: TestApp): { committed: number; copied: number } {
  const index = readFileSync(join(t.config.dataDir, `${SQLITE_FILE}-shm`));
  return { committed: index.readUInt32LE(16), copied: index.readUInt32LE(96) };
}

describe.skipIf(process.env.TEST_DATABASE_URL)('SQLite checkpoints', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('never run on the server’s connection: a thread of their own copies the log back', async () => {
    const { rows } = await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(t.database.db);
    expect(rows[0]!.wal_autocheckpoint).toBe(0);

    const account = await createAccount(t, 'pro');
    for (let i = 0; i < 50; i++) {
      const created = await request(t, 'POST', '/v1/tags', {
        key: account.key,
        body: { title: `Checkpointed ${i}`, content: [{ type: 'text', content: 'x'.repeat(2000) }] },
      });
      expect(created.status).toBe(201);
    }
    expect(walPosition(t).committed).toBeGreaterThan(50);

    const copied = await waitFor(() => {
      const position = walPosition(t);
      return position.copied === position.committed ? position : undefined;
    });
    expect(copied.copied).toBeGreaterThan(50);
  });
});
