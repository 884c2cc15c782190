import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload, sha256 } from '../files/helpers.js';
import { createAccount, request, runCli, startTestApp, type Account, type TestApp } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';

const json = (result: { code: number | null; stdout: string; stderr: string }) => {
  if (result.code !== 0) throw new Error(`exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
};

/**
 * `tagsvc backup` of a SQLite instance while requests write to it, and `tagsvc restore` of that
 * backup into a new DATA_DIR, served by a new server.
 */
describe('tagsvc backup and restore', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'tagsvc-backup-'));
  const backupDir = join(scratch, 'backup');
  const restoredDir = join(scratch, 'restored');
  let source: TestApp;
  let restored: TestApp | undefined;
  let alice: Account;
  /** Tags and files whose creation was answered before the backup started. */
  const answered = { tags: [] as string[], files: new Map<string, string>() };
  let writesDuringBackup = 0;

  beforeAll(async () => {
    // SQLite whatever TEST_DATABASE_URL says: backups are SQLite's.
    source = await startTestApp({ env: { DATABASE_URL: '', DATABASE_SCHEMA: '' } });
    alice = await createAccount(source);
  });

  afterAll(async () => {
    await restored?.close();
    await source?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** One tag with one file, through the API; returns when both are answered. */
  async function write(i: number): Promise<{ tagId: string; fileId: string; digest: string }> {
    const tag = await request(source, 'POST', '/v1/tags', { key: alice.key, body: { title: `Tag ${i}` } });
    expect(tag.status, tag.text).toBe(201);
    const content = Buffer.from(`file ${i} `.repeat(500 + i));
    const file = await upload(source, alice.key, tag.body.data.id, `notes-${i}.txt`, content);
    expect(file.status, file.text).toBe(201);
    return { tagId: tag.body.data.id, fileId: file.body.data.id, digest: sha256(content) };
  }

  it('takes a backup while tags and files are written, and the restore serves every write answered before it', async () => {
    for (let i = 0; i < 10; i++) {
      const { tagId, fileId, digest } = await write(i);
      answered.tags.push(tagId);
      answered.files.set(fileId, digest);
    }
    // A file deleted before the backup must not come back.
    const deletedFile = [...answered.files.keys()][0]!;
    expect((await request(source, 'DELETE', `/v1/files/${deletedFile}`, { key: alice.key })).status).toBe(200);
    answered.files.delete(deletedFile);

    let stop = false;
    const writer = (async () => {
      for (let i = 100; !stop && i < 160; i++) {
        await write(i);
        writesDuringBackup++;
      }
    })();
    const backup = json(await runCli(['backup', backupDir, '--json'], source.env));
    stop = true;
    await writer;
    expect(writesDuringBackup, 'writes went on while the backup ran').toBeGreaterThan(0);
    expect(backup).toMatchObject({ database: 'sqlite', store: 'disk' });
    expect(backup.files).toBeGreaterThanOrEqual(answered.files.size);
    expect(backup.rows.tags).toBeGreaterThanOrEqual(answered.tags.length);

    const result = json(await runCli(['restore', backupDir, '--json'], { ...source.env, DATA_DIR: restoredDir }));
    expect(result.rows).toEqual(backup.rows);
    restored = await startTestApp({
      env: { DATA_DIR: restoredDir, SECRET_KEY: source.env.SECRET_KEY!, DATABASE_URL: '', DATABASE_SCHEMA: '' },
    });
    const tags = await request(restored, 'GET', '/v1/tags?limit=100', { key: alice.key });
    const tagIds = tags.body.data.map((tag: { id: string }) => tag.id);
    for (const id of answered.tags) expect(tagIds).toContain(id);
    expect(tags.body.pagination.total).toBe(backup.rows.tags);
    // Every file the restored database lists downloads with its bytes, those answered before included.
    let files = 0;
    for (const tagId of tagIds) {
      const listed = await request(restored, 'GET', `/v1/tags/${tagId}/files`, { key: alice.key });
      for (const file of listed.body.data as Array<{ id: string }>) {
        const download = await request(restored, 'GET', `/v1/files/${file.id}/download`, { key: alice.key });
        expect(download.status, file.id).toBe(200);
        if (answered.files.has(file.id)) expect(sha256(download.raw)).toBe(answered.files.get(file.id));
        files++;
      }
    }
    expect(files).toBe(backup.files);
    for (const id of answered.files.keys())
      expect((await request(restored, 'GET', `/v1/files/${id}`, { key: alice.key })).status).toBe(200);
    expect((await request(restored, 'GET', `/v1/files/${deletedFile}`, { key: alice.key })).status).toBe(404);
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

describe.skipIf(!process.env.TEST_DATABASE_URL)('tagsvc backup on PostgreSQL', () => {
  const t = useApp();

  it('refuses and points to pg_dump', async () => {
    const result = await runCli(['backup', join(tmpdir(), 'never-written')], t.env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/pg_dump/);
  });
});
