import { execFileSync } from 'node:child_process';

/** CLI tests run bin/tagsvc, which needs dist/: build it when the sources are newer. */
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { stdio: 'inherit' });
}
