import { copyFile, link, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import SQLite from 'better-sqlite3';
import type { Config } from '../config.js';
import { SQLITE_FILE } from '../db/database.js';
import { invalidRequest } from '../errors.js';
import { LocalDiskStorage, type BlobStorage } from '../lib/blob-storage.js';
import {
  blobPathIn,
  describeDatabase,
  fileRowsOf,
  FORMAT,
  MANIFEST,
  missingFromStore,
  sha256Of,
  VERSION,
  type BlobEntry,
  type Manifest,
} from './backup-manifest.js';

export const POSTGRES_BACKUPS =
  'backup and restore are for SQLite; on PostgreSQL use pg_dump and pg_restore, plus the files (docs/operations.md, "Backups on PostgreSQL")';

/**
 * Takes a consistent backup of a running instance on SQLite into `dir` (new or empty). The order makes
 * every file row of the backed-up database find its bytes in the backup: a blob is stored before
 * its row commits and removed only after its row's deletion commits, so
 *   1. every blob there is now is hard-linked into the backup (a later deletion removes only
 *      the storage's name for it, not the backup's);
 *   2. the database is copied by SQLite's backup API, in one step: one snapshot;
 *   3. the blobs of rows committed between 1 and 2 are linked now; links of files deleted
 *      between 1 and 2 are removed, so the backup holds exactly the snapshot's files.
 * A file both uploaded and deleted between 1 and 3 cannot be had: the backup fails, to be run again.
 */
export async function takeBackup(config: Config, storage: BlobStorage, dir: string): Promise<Manifest> {
  await requireEmptyDirectory(dir);
  const disk = storage instanceof LocalDiskStorage ? storage : undefined;
  const linked = new Set<string>();
  if (disk) for await (const { key } of storage.list()) if (await keep(disk.pathOf(key), blobPathIn(dir, key))) linked.add(key);

  const file = join(dir, SQLITE_FILE);
  const source = new SQLite(join(config.dataDir, SQLITE_FILE), { fileMustExist: true });
  try {
    // All pages in one step: a step that another connection's commit interrupts starts over.
    await source.backup(file, { progress: ({ remainingPages }) => remainingPages });
  } finally {
    source.close();
  }
  const copy = new SQLite(file, { readonly: true });
  let rows: BlobEntry[];
  let described: ReturnType<typeof describeDatabase>;
  try {
    rows = fileRowsOf(copy);
    described = describeDatabase(copy);
  } finally {
    copy.close();
  }
  const files = disk ? await completeBlobs(disk, dir, rows, linked) : await listedInStore(storage, rows);
  const secretKeyFile = await keep(join(config.dataDir, 'secret.key'), join(dir, 'secret.key'));
  const info = await stat(file);
  const manifest: Manifest = {
    format: FORMAT,
    version: VERSION,
    createdAt: new Date().toISOString(),
    database: { kind: 'sqlite', file: SQLITE_FILE, size: info.size, sha256: await sha256Of(file), ...described },
    files: { store: disk ? 'disk' : 'object-store', count: files.length, bytes: files.reduce((sum, f) => sum + f.size, 0), blobs: files },
    secretKeyFile,
  };
  // Written last and renamed into place: a backup cut short has no manifest, and restore refuses it.
  await writeFile(join(dir, `${MANIFEST}.tmp`), `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(join(dir, `${MANIFEST}.tmp`), join(dir, MANIFEST));
  return manifest;
}

async function requireEmptyDirectory(dir: string): Promise<void> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (names.length > 0) throw invalidRequest(`${dir} is not empty: back up into a new or empty directory`);
  await mkdir(dir, { recursive: true });
}

/**
 * Puts `from` at `to`: a hard link where the file system allows, else a copy. False when `from`
 * does not exist (deleted meanwhile, or no generated secret key).
 */
export async function keep(from: string, to: string): Promise<boolean> {
  await mkdir(dirname(to), { recursive: true });
  try {
    await link(from, to);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    if (code !== 'EXDEV' && code !== 'EPERM') throw error;
  }
  try {
    await copyFile(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Steps 3 of takeBackup, then every blob checked against its row's size and SHA-256. */
async function completeBlobs(disk: LocalDiskStorage, dir: string, rows: BlobEntry[], linked: Set<string>): Promise<BlobEntry[]> {
  const listed = new Set(rows.map((row) => row.key));
  for (const key of linked) if (!listed.has(key)) await rm(blobPathIn(dir, key));
  for (const row of rows) {
    if (linked.has(row.key)) continue;
    if (!(await keep(disk.pathOf(row.key), blobPathIn(dir, row.key)))) {
      throw new Error(`file ${row.key} was uploaded and deleted while the backup ran: run the backup again`);
    }
  }
  for (const row of rows) {
    const path = blobPathIn(dir, row.key);
    if ((await stat(path)).size !== row.size || (await sha256Of(path)) !== row.sha256) {
      throw new Error(`file ${row.key} does not match its size or SHA-256 in the database: the storage is damaged`);
    }
  }
  return rows;
}

/** With an object store the bytes stay in the bucket: every row's key must be there now. */
async function listedInStore(storage: BlobStorage, rows: BlobEntry[]): Promise<BlobEntry[]> {
  const missing = await missingFromStore(storage, rows);
  if (missing.length > 0) {
    throw new Error(
      `${missing.length} files are not in the object store (${missing[0]!.key} …): deleted while the backup ran? run it again`,
    );
  }
  return rows;
}
