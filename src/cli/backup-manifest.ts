import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import SQLite from 'better-sqlite3';
import type { BlobStorage } from '../lib/blob-storage.js';

/**
 * What a backup directory holds (docs/operations.md):
 *
 *   manifest.json           written last: a directory without it is no backup
 *   tagsvc.sqlite           the database, from SQLite's backup API
 *   secret.key              DATA_DIR's generated SECRET_KEY, when there is one
 *   files/blobs/{xx}/{id}   the files' bytes (disk storage only)
 */
export const MANIFEST = 'manifest.json';
export const FORMAT = 'tagsvc-backup';
export const VERSION = 1;

export interface BlobEntry {
  key: string;
  size: number;
  sha256: string;
}

export interface Manifest {
  format: typeof FORMAT;
  version: typeof VERSION;
  createdAt: string;
  database: { kind: 'sqlite'; file: string; size: number; sha256: string; migrations: string[]; rows: Record<string, number> };
  /** `disk`: the bytes are in the backup; `object-store`: only listed, the bucket keeps them. */
  files: { store: 'disk' | 'object-store'; count: number; bytes: number; blobs: BlobEntry[] };
  secretKeyFile: boolean;
}

/** A blob's path under a blobs directory, laid out as LocalDiskStorage lays out DATA_DIR/files/blobs. */
export const blobPath = (blobs: string, key: string) => join(blobs, key.slice(-2), key);

/** A blob's path in the backup `dir`. */
export const blobPathIn = (dir: string, key: string) => blobPath(join(dir, 'files', 'blobs'), key);

export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/** The files a database lists, with the size and SHA-256 recorded at upload. */
export function fileRowsOf(database: SQLite.Database): BlobEntry[] {
  return database.prepare('SELECT id AS key, size, sha256 FROM files ORDER BY id').all() as BlobEntry[];
}

/** Row counts of every table and the migrations applied: what the manifest says of the database. */
export function describeDatabase(database: SQLite.Database): Pick<Manifest['database'], 'migrations' | 'rows'> {
  const tables = database
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
    .pluck()
    .all() as string[];
  const rows = Object.fromEntries(
    tables.map((table) => [table, database.prepare(`SELECT count(*) FROM "${table}"`).pluck().get() as number]),
  );
  const migrations = database.prepare('SELECT name FROM kysely_migration ORDER BY name').pluck().all() as string[];
  return { migrations, rows };
}

/** The entries whose keys the object store does not hold now. */
export async function missingFromStore(storage: BlobStorage, blobs: BlobEntry[]): Promise<BlobEntry[]> {
  const stored = new Set<string>();
  for await (const { key } of storage.list()) stored.add(key);
  return blobs.filter((blob) => !stored.has(blob.key));
}
