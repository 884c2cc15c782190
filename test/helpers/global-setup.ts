import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { createTemplate } from './pg-template.js';
import { startS3Server } from './s3.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A directory for files the test processes share for the run; removed when the run ends. */
    runDir: string;
    /** The run's S3-compatible server (s3rver), for the object-store tests and TEST_BLOB_STORE=s3. */
    s3Endpoint: string;
    /** The migrated database PostgreSQL test apps are copied from (pg-template.ts); '' on SQLite. */
    pgTemplate: string;
  }
}

/**
 * CLI tests run bin/tagsvc, which needs dist/: build it when the sources are newer. The run's
 * scratch directory is made here, where its removal is certain: a test process may be ended
 * without running its own exit handlers. Skipping the Redis tests is said once, here. One
 * S3-compatible server serves the run, so the object-store tests need nothing installed. On
 * PostgreSQL, the migrated database every test app is copied from is made here.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { stdio: 'inherit' });
  if (!process.env.TEST_REDIS_URL && project.name === 'suite') {
    process.stderr.write(
      'TEST_REDIS_URL is not set: the tests that need Redis are skipped (e.g. TEST_REDIS_URL=redis://127.0.0.1:6379).\n',
    );
  }
  const runDir = mkdtempSync(join(tmpdir(), 'tagsvc-test-run-'));
  project.provide('runDir', runDir);
  const s3 = await startS3Server(runDir);
  project.provide('s3Endpoint', s3.endpoint);
  const template = process.env.TEST_DATABASE_URL ? await createTemplate(process.env.TEST_DATABASE_URL) : undefined;
  project.provide('pgTemplate', template?.name ?? '');
  return async () => {
    await template?.drop();
    await s3.close();
    rmSync(runDir, { recursive: true, force: true });
  };
}
