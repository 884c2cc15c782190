import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { inject } from 'vitest';

/** s3rver's fixed credentials. */
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** An S3-compatible server on 127.0.0.1 (any free port), keeping its objects under `dir`. */
export async function startS3Server(dir: string): Promise<{ endpoint: string; close(): Promise<void> }> {
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory: join(dir, 's3rver'), silent: true });
  const { port } = await server.run();
  return { endpoint: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/** The settings that point tagsvc at `bucket` on the run's S3 server (global-setup.ts starts it). */
export function s3Env(bucket: string, endpoint = inject('s3Endpoint')): Record<string, string> {
  return {
    S3_ENDPOINT: endpoint,
    S3_BUCKET: bucket,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
  };
}

/** A client of the run's S3 server, for tests that look into a bucket themselves. */
export function testS3Client(endpoint = inject('s3Endpoint')): S3Client {
  return new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS });
}

/** A new, empty bucket on the run's S3 server: each test app keeps its files apart. */
export async function freshBucket(): Promise<string> {
  const bucket = `t-${randomBytes(8).toString('hex')}`;
  const client = testS3Client();
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return bucket;
}
