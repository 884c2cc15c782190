import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import type { Config } from '../config.js';
import { SQLITE_FILE } from '../db/database.js';
import { invalidRequest } from '../errors.js';
import { filesLayout } from '../lib/blob-storage.js';
import { blobPath, blobPathIn, FORMAT, MANIFEST, sha256Of, VERSION, type Manifest } from './backup-manifest.js';
import { keep, POSTGRES_BACKUPS } from './backup.js';

/**
 * Brings a backup made by takeBackup back into DATA_DIR: the manifest and every checksum are
 * verified before anything is written (an object store's keys are checked afterwards, by the
 * command, on the restored instance's storage); a DATA_DIR holding data is refused unless `force`, and
 * refused whatever `force` says while a process has the database open.
 */
export async function restoreBackup(config: Config, dir: string, force: boolean): Promise<Manifest> {
  if (config.databaseUrl) throw invalidRequest(POSTGRES_BACKUPS);
  const manifest = await verifiedManifest(dir);
  const database = join(config.dataDir, SQLITE_FILE);
  const { blobs, cache } = filesLayout(config.dataDir);
  if (existsSync(database)) {
    requireNoOtherProcess(database);
    if (!force)
      throw invalidRequest(`${config.dataDir} already holds a database: restore into an empty DATA_DIR, or pass --force to replace it`);
  }
  if (!force && (await namesIn(blobs)).length > 0)
    throw invalidRequest(`${config.dataDir} already holds files: pass --force to replace them`);

  // Everything is staged beside its place first, then swapped in, the database last: a failure
  // while copying leaves DATA_DIR as it was.
  await mkdir(config.dataDir, { recursive: true });
  const stagedBlobs = `${blobs}.restoring`;
  await rm(stagedBlobs, { recursive: true, force: true });
  if (manifest.files.store === 'disk') {
    for (const blob of manifest.files.blobs) await keep(blobPathIn(dir, blob.key), blobPath(stagedBlobs, blob.key));
  }
  const stagedDatabase = `${database}.restoring`;
  await copyFile(join(dir, SQLITE_FILE), stagedDatabase);
  await rm(blobs, { recursive: true, force: true });
  await rm(cache, { recursive: true, force: true });
  if (manifest.files.store === 'disk') await rename(stagedBlobs, blobs);
  if (manifest.secretKeyFile) await copyFile(join(dir, 'secret.key'), join(config.dataDir, 'secret.key'));
  for (const suffix of ['-wal', '-shm']) await rm(`${database}${suffix}`, { force: true });
  await rename(stagedDatabase, database);
  return manifest;
}

async function verifiedManifest(dir: string): Promise<Manifest> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as Manifest;
  } catch {
    throw invalidRequest(`${dir} holds no readable ${MANIFEST}: not a complete backup`);
  }
  if (manifest.format !== FORMAT || manifest.version !== VERSION) {
    throw invalidRequest(`${dir} is not a tagsvc backup of version ${VERSION}`);
  }
  const damaged = (what: string) => invalidRequest(`the backup is damaged: ${what} does not match the manifest; nothing was restored`);
  const database = join(dir, SQLITE_FILE);
  if (!existsSync(database) || (await sha256Of(database)) !== manifest.database.sha256) throw damaged(SQLITE_FILE);
  if (manifest.files.store === 'disk') {
    for (const blob of manifest.files.blobs) {
      const path = blobPathIn(dir, blob.key);
      if (!existsSync(path) || (await stat(path)).size !== blob.size || (await sha256Of(path)) !== blob.sha256)
        throw damaged(`file ${blob.key}`);
    }
  }
  if (manifest.secretKeyFile && !existsSync(join(dir, 'secret.key'))) throw damaged('secret.key');
  return manifest;
}

/**
 * A running server (or any process) keeps its connection open, and an exclusive lock cannot be
 * had beside it: SQLite's own answer, for every process on this machine.
 */
function requireNoOtherProcess(file: string): void {
  const probe = new SQLite(file, { fileMustExist: true });
  try {
    probe.pragma('locking_mode = EXCLUSIVE');
    probe.exec('BEGIN EXCLUSIVE');
    probe.exec('COMMIT');
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    throw invalidRequest(`a process has ${file} open (a server or worker?): stop it before restoring`);
  } finally {
    probe.close();
  }
}

async function namesIn(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}
