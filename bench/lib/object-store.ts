import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startNode, waitForHttp } from './children.js';

/** The bucket the files-s3 variant keeps its files in. */
const BUCKET = 'bench-files';

let endpoint: string | undefined;

/**
 * s3rver (npm, a dev dependency) in a process of its own, so the bench's client does not share
 * its thread: the object store the files-s3 variant measures against the disk. Started once a run.
 */
export async function startObjectStore(root: string, workDir: string): Promise<void> {
  if (endpoint) return;
  const port = await freePort();
  const directory = join(workDir, 's3rver');
  mkdirSync(directory, { recursive: true });
  const child = startNode(
    's3rver',
    [
      join(root, 'node_modules/s3rver/bin/s3rver.js'),
      '-d',
      directory,
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '-s',
      '--configure-bucket',
      BUCKET,
    ],
    { env: process.env, cwd: root, logFile: join(workDir, 's3rver.log') },
  );
  await waitForHttp(`http://127.0.0.1:${port}/`, child);
  endpoint = `http://127.0.0.1:${port}`;
}

/** The settings that point the service at the object store (s3rver's fixed credentials). */
export function objectStoreEnv(): Record<string, string> {
  return {
    BLOB_STORE: 's3',
    S3_ENDPOINT: endpoint ?? 'http://127.0.0.1:0',
    S3_BUCKET: BUCKET,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
  };
}
