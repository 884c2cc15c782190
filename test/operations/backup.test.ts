import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload, sha256 } from '../files/helpers.js';
import { createAccount, request, runCli, startTestApp, type Account, type TestApp } from '../helpers/app.js';
import { describeOnce, useApp } from '../helpers/harness.js';

const json = (result: { code: number | null; stdout: string; stderr: string }) => {
  if (result.code !== 0) throw new Error(`exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
};

/**
 * The settings of a SQLite instance, whatever TEST_DATABASE_URL says: backups are SQLite's, so
 * these suites run once (describeOnce), not again on the PostgreSQL leg.
 */
const SQLITE = { DATABASE_URL: '', DATABASE_SCHEMA: '' };

/** Tags and files whose creation was answered before the backup started. */
interface Answered {
  tags: string[];
  /** File id → SHA-256 of its bytes. */
  files: Map<string, string>;
}

/** What `tagsvc backup --json` prints. */
interface BackupSummary {
  database: string;
  store: string;
  files: number;
  rows: Record<string, number>;
}

/** One tag with one file, through the API; returns when both are answered. */
async function write(app: TestApp, key: string, i: number): Promise<{ tagId: string; fileId: string; digest: string }> {
  const tag = await request(app, 'POST', '/v1/tags', { key, body: { title: `Tag ${i}` } });
  expect(tag.status, tag.text).toBe(201);
  const content = Buffer.from(`file ${i} `.repeat(500 + i));
  const file = await upload(app, key, tag.body.data.id, `notes-${i}.txt`, content);
  expect(file.status, file.text).toBe(201);
  return { tagId: tag.body.data.id, fileId: file.body.data.id, digest: sha256(content) };
}

/**
 * Ten tags with a file each, one of the files deleted again (it must not come back), then
 * `tagsvc backup` into `dir` while more tags and files are written. Returns what was answered
 * before the backup and the backup's summary.
 */
async function backUpDuringWrites(
  app: TestApp,
  key: string,
  dir: string,
): Promise<{ answered: Answered; backup: BackupSummary; deleted: string }> {
  const answered: Answered = { tags: [], files: new Map() };
  for (let i = 0; i < 10; i++) {
    const { tagId, fileId, digest } = await write(app, key, i);
    answered.tags.push(tagId);
    answered.files.set(fileId, digest);
  }
  const deleted = [...answered.files.keys()][0]!;
  expect((await request(app, 'DELETE', `/v1/files/${deleted}`, { key })).status).toBe(200);
  answered.files.delete(deleted);

  let stop = false;
  let writesDuringBackup = 0;
  const writer = (async () => {
    for (let i = 100; !stop && i < 160; i++) {
      await write(app, key, i);
      writesDuringBackup++;
    }
  })();
  const backup = json(await runCli(['backup', dir, '--json'], app.env)) as BackupSummary;
  stop = true;
  await writer;
  expect(writesDuringBackup, 'writes went on while the backup ran').toBeGreaterThan(0);
  expect(backup.files).toBeGreaterThanOrEqual(answered.files.size);
  expect(backup.rows.tags).toBeGreaterThanOrEqual(answered.tags.length);
  return { answered, backup, deleted };
}

/** The restored server lists every tag of the backup and serves every file it lists, with its bytes. */
async function expectServed(restored: TestApp, key: string, { answered, backup, deleted }: Awaited<ReturnType<typeof backUpDuringWrites>>) {
  const tags = await request(restored, 'GET', '/v1/tags?limit=100', { key });
  const tagIds = tags.body.data.map((tag: { id: string }) => tag.id);
  for (const id of answered.tags) expect(tagIds).toContain(id);
  expect(tags.body.pagination.total).toBe(backup.rows.tags);
  // Every file the restored database lists downloads with its bytes, those answered before included.
  let files = 0;
  for (const tagId of tagIds) {
    const listed = await request(restored, 'GET', `/v1/tags/${tagId}/files`, { key });
    for (const file of listed.body.data as Array<{ id: string }>) {
      const download = await request(restored, 'GET', `/v1/files/${file.id}/download`, { key });
      expect(download.status, file.id).toBe(200);
      if (answered.files.has(file.id)) expect(sha256(download.raw)).toBe(answered.files.get(file.id));
      files++;
    }
  }
  expect(files).toBe(backup.files);
  for (const id of answered.files.keys()) expect((await request(restored, 'GET', `/v1/files/${id}`, { key })).status).toBe(200);
  expect((await request(restored, 'GET', `/v1/files/${deleted}`, { key })).status).toBe(404);
}

/**
 * `tagsvc backup` of a SQLite instance with its files on disk while requests write to it, and
 * `tagsvc restore` of that backup into a new DATA_DIR, served by a new server.
 */
describeOnce('tagsvc backup and restore', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'tagsvc-backup-'));
  const backupDir = join(scratch, 'backup');
  const restoredDir = join(scratch, 'restored');
  let source: TestApp;
  let restored: TestApp | undefined;
  let alice: Account;

  beforeAll(async () => {
    source = await startTestApp({ blobStore: 'disk', env: SQLITE });
    alice = await createAccount(source);
  });

  afterAll(async () => {
    await restored?.close();
    await source?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('takes a backup while tags and files are written, and the restore serves every write answered before it', async () => {
    const taken = await backUpDuringWrites(source, alice.key, backupDir);
    expect(taken.backup).toMatchObject({ database: 'sqlite', store: 'disk' });
    const result = json(await runCli(['restore', backupDir, '--json'], { ...source.env, DATA_DIR: restoredDir }));
    expect(result.rows).toEqual(taken.backup.rows);
    restored = await startTestApp({ blobStore: 'disk', env: { ...SQLITE, DATA_DIR: restoredDir, SECRET_KEY: source.env.SECRET_KEY! } });
    await expectServed(restored, alice.key, taken);
  });

  it('refuses to restore over a DATA_DIR that holds data, and while a server has it open even with --force', async () => {
    const again = await runCli(['restore', backupDir], { ...source.env, DATA_DIR: restoredDir });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/a process has .* open|already holds/);
    const forced = await runCli(['restore', backupDir, '--force'], { ...source.env, DATA_DIR: restoredDir });
    expect(forced.code).toBe(1);
    expect(forced.stderr).toMatch(/a process has .* open/);
    await restored!.close();
    restored = undefined;
    // DATA_DIR of the closed server is kept by the test app only while it runs; restore into a new one.
    const idle = join(scratch, 'idle');
    json(await runCli(['restore', backupDir, '--json'], { ...source.env, DATA_DIR: idle }));
    const refused = await runCli(['restore', backupDir], { ...source.env, DATA_DIR: idle });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/already holds a database/);
    json(await runCli(['restore', backupDir, '--force', '--json'], { ...source.env, DATA_DIR: idle }));
  });

  it('refuses a damaged backup and writes nothing', async () => {
    const damaged = join(scratch, 'damaged');
    // A copy, not the backup itself: its blobs are hard links to the source's.
    cpSync(backupDir, damaged, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(damaged, 'manifest.json'), 'utf8'));
    const blob = manifest.files.blobs[0];
    const path = join(damaged, 'files', 'blobs', blob.key.slice(-2), blob.key);
    const bytes = readFileSync(path);
    bytes[0] = bytes[0]! ^ 1;
    writeFileSync(path, bytes);
    const target = join(scratch, 'from-damaged');
    const result = await runCli(['restore', damaged], { ...source.env, DATA_DIR: target });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`damaged: file ${blob.key}`));
    rmSync(join(damaged, 'manifest.json'));
    const incomplete = await runCli(['restore', damaged], { ...source.env, DATA_DIR: target });
    expect(incomplete.code).toBe(1);
    expect(incomplete.stderr).toMatch(/no readable manifest.json/);
    expect(() => readFileSync(join(target, 'tagsvc.sqlite'))).toThrow();
  });

  it('refuses to back up into a directory that is not empty', async () => {
    const result = await runCli(['backup', backupDir], source.env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/is not empty/);
  });
});

/**
 * With the files in an object store the backup holds the database and a list of the bucket's
 * keys (the bucket keeps the bytes); the restore checks that the bucket still has them all.
 */
describeOnce('tagsvc backup and restore with the files in an object store', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'tagsvc-backup-s3-'));
  const apps: TestApp[] = [];

  afterAll(async () => {
    for (const app of apps) await app.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('lists the bucket’s keys, restores a database that serves every file from the bucket, and says when the bucket lost one', async () => {
    const source = await startTestApp({ blobStore: 's3', env: SQLITE });
    apps.push(source);
    const alice = await createAccount(source);
    const backupDir = join(scratch, 'backup');
    const taken = await backUpDuringWrites(source, alice.key, backupDir);
    expect(taken.backup).toMatchObject({ database: 'sqlite', store: 'object-store' });
    const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8'));
    expect(manifest.files.blobs).toHaveLength(taken.backup.files);
    for (const id of taken.answered.files.keys()) expect(manifest.files.blobs.map((b: { key: string }) => b.key)).toContain(id);

    // A new DATA_DIR on the same bucket (the source's S3 settings; no fresh bucket for it).
    const restoredDir = join(scratch, 'restored');
    const result = json(await runCli(['restore', backupDir, '--json'], { ...source.env, DATA_DIR: restoredDir }));
    expect(result.rows).toEqual(taken.backup.rows);
    const restored = await startTestApp({ blobStore: 'disk', env: { ...source.env, DATA_DIR: restoredDir } });
    apps.push(restored);
    await expectServed(restored, alice.key, taken);

    // A file deleted from the source after the backup is gone from the bucket: the database is
    // restored, and the command fails naming what the bucket no longer has.
    const lost = [...taken.answered.files.keys()][0]!;
    expect((await request(source, 'DELETE', `/v1/files/${lost}`, { key: alice.key })).status).toBe(200);
    const again = await runCli(['restore', backupDir], { ...source.env, DATA_DIR: join(scratch, 'again') });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`1 of its files are not in the object store (${lost}`);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('tagsvc backup on PostgreSQL', () => {
  const t = useApp();

  it('refuses and points to pg_dump', async () => {
    const result = await runCli(['backup', join(tmpdir(), 'never-written')], t.env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/pg_dump/);
  });
});
