import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A directory for files the test processes share for the run; removed when the run ends. */
    runDir: string;
  }
}

/**
 * CLI tests run bin/tagsvc, which needs dist/: build it when the sources are newer. The run's
 * scratch directory is made here, where its removal is certain: a test process may be ended
 * without running its own exit handlers. Skipping the Redis tests is said once, here.
 */
export default function setup(project: TestProject): () => void {
  execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { stdio: 'inherit' });
  if (!process.env.TEST_REDIS_URL && project.name === 'suite') {
    process.stderr.write(
      'TEST_REDIS_URL is not set: the tests that need Redis are skipped (e.g. TEST_REDIS_URL=redis://127.0.0.1:6379).\n',
    );
  }
  const runDir = mkdtempSync(join(tmpdir(), 'tagsvc-test-run-'));
  project.provide('runDir', runDir);
  return () => rmSync(runDir, { recursive: true, force: true });
}
