import { createReadStream, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PART_BYTES, PARTS_IN_FLIGHT } from '../../src/lib/s3-part-upload.js';
import { freePort, startNode, waitForHttp } from './children.js';
import type { Transfer } from './transfer.js';

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

/** The object the baseline writes and reads back: outside blobs/, so no service ever sees it. */
const BASELINE_KEY = 'bench-baseline/file';

let client: S3Client | undefined;

function baselineClient(): S3Client {
  if (!endpoint) throw new Error('the object store is not started');
  // The SDK warns on Node 20 about its versions of 2027 (as the service's storage says).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // The service's client settings (src/lib/s3-blob-storage.ts), so only the path differs.
  client ??= new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return client;
}

/**
 * The object store on its own, the baseline the service's transfers are judged against: the
 * file put straight into the bucket by this process with the service's SDK and part settings
 * (lib-storage's Upload from a file stream), timed from the first byte read to the completed object.
 */
export async function putStraight(path: string): Promise<Transfer> {
  const started = performance.now();
  await new Upload({
    client: baselineClient(),
    params: { Bucket: BUCKET, Key: BASELINE_KEY, Body: createReadStream(path) },
    partSize: PART_BYTES,
    queueSize: PARTS_IN_FLIGHT,
  }).done();
  const seconds = (performance.now() - started) / 1000;
  return { status: 200, bytes: statSync(path).size, seconds, body: '', headers: {} };
}

/** That object read straight back with one GetObject, its bytes counted and discarded. */
export async function getStraight(): Promise<Transfer> {
  const started = performance.now();
  const answer = await baselineClient().send(new GetObjectCommand({ Bucket: BUCKET, Key: BASELINE_KEY }));
  let bytes = 0;
  for await (const chunk of answer.Body as Readable) bytes += (chunk as Buffer).length;
  const seconds = (performance.now() - started) / 1000;
  return { status: answer.$metadata.httpStatusCode ?? 0, bytes, seconds, body: '', headers: {} };
}
