// The client code (src/**/*.css, src/**/*.js: stylesheets and browser scripts the service serves
// as they are) goes into dist/ beside the compiled modules that read it, as tsc copies only code.
import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const CLIENT_FILE = /\.(css|js)$/;

function copyClientFiles(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (entry.isDirectory()) copyClientFiles(source, join(to, entry.name));
    else if (CLIENT_FILE.test(entry.name)) cpSync(source, join(to, entry.name));
  }
}

copyClientFiles('src', 'dist');
