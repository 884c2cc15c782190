import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE } from '../../src/db/database.js';
import { checkpointInBackground } from '../../src/db/sqlite-checkpointer.js';
import { createAccount, request, startTestApp, type Account, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/receiver.js';
import { stallProbe } from '../helpers/stall-probe.js';

/**
 * The write-ahead log's position, read from the WAL index (the -shm file; sqlite.org/walformat):
 * the frames committed (mxFrame, offset 16) and those copied back into the database file by a
 * checkpoint (nBackfill, offset 96). Read from the file, so that reading checkpoints nothing.
 */
function walPosition(t: TestApp): { committed: number; copied: number } {
  const index = readFileSync(join(t.config.dataDir, `${SQLITE_FILE}-shm`));
  return { committed: index.readUInt32LE(16), copied: index.readUInt32LE(96) };
}

/** The salts of the log's header (bytes 16-23): new each time the log is begun anew from its start. */
function walSalt(t: TestApp): string {
  const fd = openSync(join(t.config.dataDir, `${SQLITE_FILE}-wal`), 'r');
  try {
    const header = Buffer.alloc(8);
    readSync(fd, header, 0, 8, 16);
    return header.toString('hex');
  } finally {
    closeSync(fd);
  }
}

const createTag = (t: TestApp, account: Account, title: string) =>
  request(t, 'POST', '/v1/tags', { key: account.key, body: { title, content: [{ type: 'text', content: 'x'.repeat(2000) }] } });

describe.skipIf(process.env.TEST_DATABASE_URL)('SQLite checkpoints', () => {
  let t: TestApp;
  let account: Account;

  beforeAll(async () => {
    t = await startTestApp();
    account = await createAccount(t, 'pro');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('never run on the server’s connection: a thread of their own copies the log back and begins it anew', async () => {
    const { rows } = await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(t.database.db);
    expect(rows[0]!.wal_autocheckpoint).toBe(0);

    for (let i = 0; i < 50; i++) expect((await createTag(t, account, `Checkpointed ${i}`)).status).toBe(201);
    const written = { ...walPosition(t), salt: walSalt(t) };
    expect(written.committed).toBeGreaterThan(50);

    // Copied whole, then begun anew by the thread's own commit of one frame, with no request.
    const restarted = await waitFor(() => (walSalt(t) !== written.salt ? walPosition(t) : undefined));
    expect(restarted.committed).toBeLessThan(written.committed);
    const listed = await request(t, 'GET', '/v1/tags?limit=100', { key: account.key });
    expect(listed.body.data.filter((tag: { title: string }) => tag.title.startsWith('Checkpointed '))).toHaveLength(50);
  });

  it('leaves the log alone while nothing is written, for the server’s next write to append to', async () => {
    for (let i = 0; i < 5; i++) expect((await createTag(t, account, `Before a pause ${i}`)).status).toBe(201);
    const before = walSalt(t);
    await waitFor(() => walSalt(t) !== before);
    const restarted = { ...walPosition(t), salt: walSalt(t) };

    // Two passes of the thread with nothing new: it neither begins the log anew again (an fsync
    // a second for nothing) nor copies its own frame, which would leave the log copied whole
    // for the server's next write to begin anew (and fsync its header on the server's thread).
    await sleep(2500);
    expect({ ...walPosition(t), salt: walSalt(t) }).toEqual(restarted);
    expect(restarted.copied).toBeLessThan(restarted.committed);

    expect((await createTag(t, account, 'After a pause')).status).toBe(201);
    expect(walSalt(t)).toBe(restarted.salt);
    expect(walPosition(t).committed).toBeGreaterThan(restarted.committed);
  });

  it('a write that finds the database locked waits on a timer, the thread answering meanwhile', async () => {
    const other = new SQLite(join(t.config.dataDir, SQLITE_FILE));
    try {
      other.exec('BEGIN IMMEDIATE');
      let released = false;
      const probe = stallProbe();
      const created = createTag(t, account, 'Waited for the lock').then((response) => ({ response, afterRelease: released }));
      await sleep(500);
      released = true;
      other.exec('COMMIT');
      const { response, afterRelease } = await created;
      const worst = probe.stop();

      expect(response.status, response.text).toBe(201);
      expect(afterRelease).toBe(true);
      expect(worst, 'the longest the thread could not answer anything, ms').toBeLessThan(250);
    } finally {
      other.close();
    }
  });

  it('a thread that fails is reported, and the connection checkpoints by itself again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tagsvc-checkpoint-'));
    const sqlite = new SQLite(join(dir, 'own.sqlite'));
    try {
      sqlite.pragma('journal_mode = WAL');
      // The thread's own connection cannot open a file in a folder that does not exist.
      const failed = new Promise<Error>((resolve) => checkpointInBackground(sqlite, join(dir, 'missing', 'own.sqlite'), resolve));
      expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      expect((await failed).message).toMatch(/directory does not exist/);
      expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    } finally {
      sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
