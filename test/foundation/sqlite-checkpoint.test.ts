import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SQLITE_FILE } from '../../src/db/database.js';
import { checkpointInBackground, restartDelayMs } from '../../src/db/sqlite-checkpointer.js';
import { failureReason } from '../../src/errors.js';
import { request, type Account, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { waitFor } from '../helpers/receiver.js';
import { mountSmallDisk, whyNoSmallDisk } from '../helpers/small-disk.js';
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

const autocheckpoint = (sqlite: SQLite.Database) => sqlite.pragma('wal_autocheckpoint', { simple: true });

const noSmallDisk = whyNoSmallDisk();

const createTag = (t: TestApp, account: Account, title: string) =>
  request(t, 'POST', '/v1/tags', { key: account.key, body: { title, content: [{ type: 'text', content: 'x'.repeat(2000) }] } });

describe.skipIf(process.env.TEST_DATABASE_URL)('SQLite checkpoints', () => {
  const t = useApp();
  const account = useAccount(t, 'pro');

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
    // The log's new header is written before the thread's frame is committed: wait for both.
    await waitFor(() => walSalt(t) !== before && walPosition(t).committed > 0);
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

  it('a thread that fails is reported and started again after a pause, the connection checkpointing meanwhile, until stopped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tagsvc-checkpoint-'));
    const sqlite = new SQLite(join(dir, 'own.sqlite'));
    try {
      sqlite.pragma('journal_mode = WAL');
      // The thread's own connection cannot open a file in a folder that does not exist.
      const failures: { at: number; reason: string }[] = [];
      const checkpointer = checkpointInBackground(sqlite, join(dir, 'missing', 'own.sqlite'), (error) =>
        failures.push({ at: performance.now(), reason: failureReason(error) }),
      );
      expect(autocheckpoint(sqlite)).toBe(0);
      await waitFor(() => failures.length >= 2);
      expect(failures.map((failure) => failure.reason)).toEqual(Array(2).fill(expect.stringMatching(/directory does not exist/)));
      expect(failures[1]!.at - failures[0]!.at).toBeGreaterThanOrEqual(restartDelayMs(1) - 50);
      expect(autocheckpoint(sqlite)).toBe(1000);

      // Stopped while it waits to start the thread a third time (2 s after the second failure).
      await checkpointer.stop();
      await sleep(restartDelayMs(2) + 500);
      expect(failures).toHaveLength(2);
    } finally {
      sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pauses 1 s before starting a failed thread again, doubling with each failure in a row up to a minute', () => {
    expect([1, 2, 3, 6, 7, 8, 100].map(restartDelayMs)).toEqual([1000, 2000, 4000, 32_000, 60_000, 60_000, 60_000]);
  });

  it.skipIf(noSmallDisk)(
    `a thread that fails for want of space checkpoints the log again once there is space${noSmallDisk ? ` (skipped: ${noSmallDisk})` : ''}`,
    async () => {
      const disk = mountSmallDisk(8);
      const file = join(disk.dir, 'own.sqlite');
      const sqlite = new SQLite(file);
      const failures: string[] = [];
      let checkpointer: { stop(): Promise<void> } | undefined;
      try {
        sqlite.pragma('journal_mode = WAL');
        sqlite.pragma('wal_autocheckpoint = 0');
        sqlite.exec('CREATE TABLE filler (bytes BLOB)');
        const insert = sqlite.prepare('INSERT INTO filler VALUES (?)');
        for (let i = 0; i < 64; i++) insert.run(randomBytes(32 * 1024));
        // 2 MB in the log, none of it in the database file yet: copying it back must grow the
        // file by as much, which a full disk refuses.
        const before = statSync(file).size;
        disk.fill(0);

        checkpointer = checkpointInBackground(sqlite, file, (error) => failures.push(failureReason(error)));
        await waitFor(() => failures.length > 0);
        expect(failures[0]).toMatch(/^SQLITE_FULL: /);
        expect(autocheckpoint(sqlite)).toBe(1000);

        disk.free();
        // Started again after its pause, the thread copies the log back and checkpoints alone again.
        await waitFor(() => autocheckpoint(sqlite) === 0, 10_000, 'the thread to run again');
        expect(statSync(file).size - before).toBeGreaterThan(2 * 1024 * 1024);
        expect(sqlite.prepare('SELECT count(*) FROM filler').pluck().get()).toBe(64);
        expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        await checkpointer?.stop();
        sqlite.close();
        disk.unmount();
      }
    },
  );
});
