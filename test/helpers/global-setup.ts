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
 * without running its own exit handlers.
 */
export default function setup(project: TestProject): () => void {
  execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { stdio: 'inherit' });
  const runDir = mkdtempSync(join(tmpdir(), 'tagsvc-test-run-'));
  project.provide('runDir', runDir);
  return () => rmSync(runDir, { recursive: true, force: true });
}
