import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pageBody } from './scenarios/tag-fixture.js';

/**
 * What writing the audit entry adds to a tag update (#35: at most 10 %), counted in
 * instructions by valgrind's callgrind rather than timed: the same count for the same build and
 * requests whatever else the machine runs, where the CPU time of an update varies by more than
 * the 10 % asked about from one run to the next.
 *
 * Two copies of the checked-out commit are built: as it is, and with recordAudit returning at
 * once (the only difference). Each serves under callgrind on SQLite with an Enterprise key; a
 * client sends WARM updates of a tag (title and 4 blocks, as the `tag-update` scenario), the
 * counters are zeroed, then UPDATES more are sent and counted. Both servers run at once.
 *
 *   npx tsx bench/audit-cost.ts                  WARM=200 UPDATES=1000, about 15 minutes
 *   AUDIT_COST_UPDATES=300 npx tsx ...           fewer updates: quicker, noisier
 *
 * Needs valgrind (Debian's package).
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const WARM = Number(process.env.AUDIT_COST_WARM ?? 200);
const UPDATES = Number(process.env.AUDIT_COST_UPDATES ?? 1000);
const RECORD_AUDIT =
  'export async function recordAudit(ctx: ServiceContext, db: Db, actor: AuditActor, entry: AuditEntry): Promise<void> {\n';

const work = mkdtempSync(join(tmpdir(), 'audit-cost-'));

/** A built copy of HEAD in `work`, with recordAudit emptied when `withoutAudit`. */
function buildCopy(name: string, withoutAudit: boolean): string {
  const dir = join(work, name);
  execFileSync('git', ['-C', root, 'worktree', 'add', '--detach', dir, 'HEAD'], { stdio: 'ignore' });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  if (withoutAudit) {
    const file = join(dir, 'src/features/audit/audit.service.ts');
    const source = readFileSync(file, 'utf8');
    if (!source.includes(RECORD_AUDIT)) throw new Error('recordAudit is not where this script expects it: update RECORD_AUDIT');
    // A condition the compiler cannot decide, so the code after it still type-checks.
    writeFileSync(file, source.replace(RECORD_AUDIT, `${RECORD_AUDIT}  if (Date.now() > 0) return;\n`));
  }
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: 'inherit' });
  return dir;
}

function cli(dir: string, env: NodeJS.ProcessEnv, args: string[], input?: string): string {
  return execFileSync(process.execPath, [join(dir, 'dist/main.js'), ...args], { env, input, encoding: 'utf8' });
}

async function waitUp(base: string, server: ChildProcess): Promise<void> {
  // Under callgrind the server takes minutes to start.
  for (let i = 0; i < 2400; i++) {
    if (server.exitCode !== null) throw new Error(`the server under callgrind exited with ${server.exitCode}`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('the server under callgrind did not start within 20 minutes');
}

async function updates(base: string, key: string, id: string, count: number): Promise<void> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const body = JSON.stringify(pageBody('Conference room B — equipment, booking and access'));
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${base}/v1/tags/${id}`, { method: 'PUT', headers, body });
    if (response.status !== 200) throw new Error(`PUT answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  }
}

/** Instructions the server executed for UPDATES tag updates after WARM ones. */
async function measure(dir: string, port: number): Promise<number> {
  const dataDir = mkdtempSync(join(work, 'data-'));
  const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', RATE_LIMITS: 'false', PORT: String(port) };
  cli(dir, env, ['migrate']);
  cli(dir, env, ['user', 'create', '--email', 'bench@example.com', '--plan', 'enterprise'], 'bench-password-123456\n');
  const { key } = JSON.parse(cli(dir, env, ['--json', 'key', 'create', '--email', 'bench@example.com', '--name', 'bench'])) as {
    key: string;
  };
  const out = join(dataDir, 'callgrind.out');
  const server = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${out}`,
      '--dump-instr=no',
      process.execPath,
      join(dir, 'dist/main.js'),
      'serve',
      '--no-worker',
    ],
    { env, stdio: 'ignore' },
  );
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitUp(base, server);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/v1/tags`, { method: 'POST', headers, body: JSON.stringify(pageBody()) });
    const { id } = ((await created.json()) as { data: { id: string } }).data;
    await updates(base, key, id, WARM);
    execFileSync('callgrind_control', ['--zero', String(server.pid)], { stdio: 'ignore' });
    await updates(base, key, id, UPDATES);
    execFileSync('callgrind_control', ['--dump=measured', String(server.pid)], { stdio: 'ignore' });
    const dump = readdirSync(dataDir).find((name) => name.startsWith('callgrind.out.'));
    const summary = dump && /^summary: (\d+)$/m.exec(readFileSync(join(dataDir, dump), 'utf8'));
    if (!summary) throw new Error(`callgrind wrote no dump in ${dataDir}`);
    return Number(summary[1]);
  } finally {
    server.kill('SIGTERM');
  }
}

try {
  const [withAudit, without] = [buildCopy('with-audit', false), buildCopy('without-audit', true)];
  console.log(`callgrind: ${WARM} updates to warm up, then ${UPDATES} counted, both servers at once`);
  const [a, b] = await Promise.all([measure(withAudit, 38_601), measure(without, 38_602)]);
  const perUpdate = (total: number) => Math.round(total / UPDATES);
  console.log(`with the audit entry:    ${perUpdate(a).toLocaleString('en-US')} instructions a tag update`);
  console.log(`without the audit entry: ${perUpdate(b).toLocaleString('en-US')} instructions a tag update`);
  console.log(`the entry adds ${((100 * (a - b)) / b).toFixed(1)} % (target ≤ 10 %)`);
} finally {
  for (const name of ['with-audit', 'without-audit']) {
    if (existsSync(join(work, name)))
      execFileSync('git', ['-C', root, 'worktree', 'remove', '--force', join(work, name)], { stdio: 'ignore' });
  }
  rmSync(work, { recursive: true, force: true });
}
