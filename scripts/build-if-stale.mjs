// `npm start` builds only when dist/ is missing or older than any source file (code or client
// code: a changed .css or .js counts too), as `npm run build` does.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const stamp = 'dist/main.js';

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const inputs = Math.max(newestMtime('src'), statSync('tsconfig.json').mtimeMs, statSync('tsconfig.build.json').mtimeMs);
if (!existsSync(stamp) || statSync(stamp).mtimeMs < inputs) {
  console.error('tagsvc: building…');
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['scripts/copy-client-files.mjs'], { stdio: 'inherit' });
}
