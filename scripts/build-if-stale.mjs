// `npm start` runs `npm run build` only when dist/ is missing or older than any source file
// (code or client code: a changed .css or .js counts too).
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
  // The build is defined once, in package.json.
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
}
