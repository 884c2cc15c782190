import { dirname } from 'node:path';
import { Transform } from 'node:stream';
import yauzl from 'yauzl';
import { discardTemp, pipeToNewFile } from '../../lib/blob-storage.js';
import { randomBytes } from 'node:crypto';

/** Extensions refused inside archives; scripts (.js, .py, .rb) are allowed there. */
const EXECUTABLE = /\.(?:exe|app|sh)$/i;
const NESTED_ARCHIVE = /\.zip$/i;
/** Archives inside archives are opened this deep (the outer archive is depth 0). */
const MAX_DEPTH = 2;
/** A nested archive larger than this is not extracted for inspection, so it is refused. */
const MAX_NESTED_BYTES = 100 * 1024 * 1024;
const MAX_ENTRIES = 200_000;

class InspectionError extends Error {}

/**
 * Whether any segment of the path names an executable, as Windows would extract it: it drops
 * trailing dots and spaces, so `evil.exe.` and `evil.exe ` are `evil.exe`.
 */
function isExecutable(path: string): boolean {
  return path
    .split(/[/\\]/)
    .map((segment) => segment.replace(/[. ]+$/, ''))
    .some((segment) => EXECUTABLE.test(segment));
}

function readLocalFileHeader(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<yauzl.LocalFileHeader> {
  return new Promise((resolve, reject) => zip.readLocalFileHeader(entry, (error, header) => (error ? reject(error) : resolve(header))));
}

/**
 * The name of the first executable (.exe, .app, .sh) inside the zip at `path`, looking into
 * nested zips too; undefined when there is none. Rejects when the file is not a readable zip
 * (or is too big to inspect), which callers treat as "not a valid archive". A folder
 * named `Something.app/` is a macOS application and counts as an executable.
 */
export async function findExecutableInZip(path: string, depth = 0): Promise<string | undefined> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true });
  try {
    if (zip.entryCount > MAX_ENTRIES) throw new InspectionError('too many entries');
    for await (const entry of zip.eachEntry()) {
      // The local header repeats the name, and extractors that stream the file use that copy:
      // an archive whose two names differ is judged by both.
      const local = (await readLocalFileHeader(zip, entry)).fileName.toString('utf8');
      if (isExecutable(entry.fileName) || isExecutable(local)) return entry.fileName;
      if (NESTED_ARCHIVE.test(entry.fileName) && !entry.fileName.endsWith('/')) {
        if (depth >= MAX_DEPTH || entry.uncompressedSize > MAX_NESTED_BYTES || !entry.canDecodeFileData()) {
          throw new InspectionError('nested archive cannot be inspected');
        }
        const found = await inspectNested(zip, entry, path, depth + 1);
        if (found) return `${entry.fileName}/${found}`;
      }
    }
    return undefined;
  } finally {
    zip.close();
  }
}

async function inspectNested(zip: yauzl.ZipFile, entry: yauzl.Entry, outerPath: string, depth: number): Promise<string | undefined> {
  // Next to the outer file: the temp directory, on the same disk, cleaned on failure.
  const innerPath = `${dirname(outerPath)}/nested-${randomBytes(8).toString('hex')}`;
  try {
    const stream = await zip.openReadStreamPromise(entry);
    let written = 0;
    const cap = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        written += chunk.length;
        callback(written > MAX_NESTED_BYTES ? new InspectionError('nested archive too large') : null, chunk);
      },
    });
    await pipeToNewFile(stream, cap, innerPath);
    return await findExecutableInZip(innerPath, depth);
  } finally {
    await discardTemp(innerPath);
  }
}
