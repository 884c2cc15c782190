import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layering rules of docs/architecture.md are lint rules (eslint.config.js); these fixtures
 * prove they report what they must and let through what they must not.
 */
const root = resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });

async function problems(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  return result!.messages.filter((m) => m.ruleId?.startsWith('no-restricted')).map((m) => m.message);
}

describe('feature boundaries', () => {
  it("refuses another feature's internals, from outside and from another feature", async () => {
    expect(
      await problems('src/jobs/fixture.ts', "import { insertTag } from '../features/tags/tags.repository.js';\nvoid insertTag;\n"),
    ).toEqual([expect.stringContaining('through its index.ts')]);
    expect(
      await problems('src/features/folders/fixture.ts', "import { insertTag } from '../tags/tags.repository.js';\nvoid insertTag;\n"),
    ).toEqual([expect.stringContaining('through its index.ts')]);
    expect(
      await problems('src/http/fixture.ts', "import { findTag } from '../features/tags/tags.service.js';\nvoid findTag;\n"),
    ).toHaveLength(1);
  });

  it("lets features use each other's index and their own modules", async () => {
    expect(await problems('src/features/folders/fixture.ts', "import { findTag } from '../tags/index.js';\nvoid findTag;\n")).toEqual([]);
    expect(await problems('src/features/tags/fixture.ts', "import * as repo from './tags.repository.js';\nvoid repo;\n")).toEqual([]);
    expect(
      await problems('src/jobs/fixture.ts', "import { rollUpViews } from '../features/analytics/index.js';\nvoid rollUpViews;\n"),
    ).toEqual([]);
  });

  it('keeps HTTP out of the features: no fastify, no src/http, no front door', async () => {
    const fastify = "import type { FastifyReply } from 'fastify';\nexport type R = FastifyReply;\n";
    expect(await problems('src/features/tags/fixture.ts', fastify)).toEqual([expect.stringContaining('no fastify')]);
    const plugin = "import multipart from '@fastify/multipart';\nvoid multipart;\n";
    expect(await problems('src/features/files/fixture.ts', plugin)).toEqual([expect.stringContaining('no fastify')]);
    const http = "import { dataEnvelope } from '../../http/envelope.js';\nvoid dataEnvelope;\n";
    expect(await problems('src/features/tags/fixture.service.ts', http)).toEqual([expect.stringContaining('below src/http/')]);
    expect(await problems('src/features/tags/fixture.routes.ts', http)).toHaveLength(1);
    const door = "import { registerApi } from '../../api/index.js';\nvoid registerApi;\n";
    expect(await problems('src/features/tags/fixture.ts', door)).toEqual([expect.stringContaining('below src/http/')]);
    expect(await problems('src/api/fixture.ts', "import { dataEnvelope } from '../http/envelope.js';\nvoid dataEnvelope;\n")).toEqual([]);
  });

  it('keeps src/http below the front doors', async () => {
    for (const door of ['api/index.js', 'public/index.js', 'dashboard/routes.js']) {
      const code = `import * as door from '../${door}';\nvoid door;\n`;
      expect(await problems('src/http/fixture.ts', code)).toEqual([expect.stringContaining('imports no front door')]);
    }
    expect(await problems('src/http/fixture.ts', "import { findTag } from '../features/tags/index.js';\nvoid findTag;\n")).toEqual([]);
  });

  it('keeps the front doors apart; what they share is in src/http/', async () => {
    const publicDoor = "import { pageRoutes } from '../public/pages.js';\nvoid pageRoutes;\n";
    expect(await problems('src/api/fixture.ts', publicDoor)).toEqual([expect.stringContaining('does not import another')]);
    const apiRoutes = "import { tagRoutes } from '../api/tags.js';\nvoid tagRoutes;\n";
    expect(await problems('src/public/fixture.ts', apiRoutes)).toEqual([expect.stringContaining('does not import another')]);
    expect(await problems('src/dashboard/tags/fixture.ts', `import * as api from '../../api/index.js';\nvoid api;\n`)).toHaveLength(1);
    expect(await problems('src/dashboard/fixture.ts', publicDoor)).toHaveLength(1);
    const schemas = "import { QrQuery } from '../http/schemas/tags.js';\nvoid QrQuery;\n";
    expect(await problems('src/public/fixture.ts', schemas)).toEqual([]);
    expect(await problems('src/dashboard/fixture.ts', schemas)).toEqual([]);
    const oldContract = "import { QrQuery } from '../api/tags.js';\nvoid QrQuery;\n";
    expect(await problems('src/dashboard/fixture.ts', oldContract)).toHaveLength(1);
  });

  it('keeps db, lib and perf below the features', async () => {
    const code = "import type { Plan } from '../features/accounts/index.js';\nexport type P = Plan;\n";
    expect(await problems('src/db/fixture.ts', code)).toEqual([expect.stringContaining('sit below the features')]);
    expect(await problems('src/lib/fixture.ts', code)).toHaveLength(1);
  });

  it('opens transactions only through db/transaction.ts', async () => {
    const code = 'export const run = (db: { transaction(): unknown }) => db.transaction();\n';
    expect(await problems('src/features/tags/fixture.ts', code)).toEqual([expect.stringContaining('transaction()')]);
    expect(await problems('src/db/fixture.ts', code)).toEqual([]);
  });
});

describe('import cycles', () => {
  it('the cycle check (npm run cycles) fails on a cycle', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tagsvc-cycle-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import { b } from './b.js';\nexport const a = () => b;\n");
      writeFileSync(join(dir, 'b.ts'), "import { a } from './a.js';\nexport const b = () => a;\n");
      const run = promisify(execFile)(
        join(root, 'node_modules/.bin/dpdm'),
        ['--no-warning', '--no-tree', '--exit-code', 'circular:1', '--tsconfig', join(root, 'tsconfig.json'), 'a.ts'],
        {
          cwd: dir,
        },
      );
      await expect(run).rejects.toMatchObject({ code: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
