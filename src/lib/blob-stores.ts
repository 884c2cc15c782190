import { ConfigError, type Config } from '../config.js';
import { LocalDiskStorage, type BlobStorage } from './blob-storage.js';

export type BlobStoreKind = Config['blobStore'];

/**
 * The storage of `kind` as configured: BLOB_STORE's by default (one per process, built by
 * createServices); the other one for `files copy`.
 */
export async function createBlobStorage(
  config: Pick<Config, 'dataDir' | 'blobStore' | 's3' | 'dependencyTimeoutMs' | 'idleTimeoutMs'>,
  kind: BlobStoreKind = config.blobStore,
): Promise<BlobStorage> {
  if (kind === 'disk') return new LocalDiskStorage(config.dataDir);
  // The AWS SDK takes a third of a second to load: only processes that use the store pay for it.
  const { S3BlobStorage } = await import('./s3-blob-storage.js');
  if (!config.s3) throw new ConfigError('S3_BUCKET', 'the object store needs its bucket (and S3_ENDPOINT, S3_REGION, credentials)');
  return new S3BlobStorage(config.s3, config.dataDir, { connectMs: config.dependencyTimeoutMs, idleMs: config.idleTimeoutMs });
}
