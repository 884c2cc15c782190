import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import { loadConfig } from '../src/config.js';
import type { AuditLogTable } from '../src/db/schema.js';
import { auditLogCsv, listAuditLog, type AuditQuery, type AuditReader } from '../src/features/audit/index.js';
import { createServices } from '../src/services.js';

/**
 * The audit log's reads against a large workspace, with the longest the thread went without
 * running a timer while each ran (its worst event-loop lap): the page 1 of the API and the
 * dashboard, a deep page, the filters by actor, action and dates, and the CSV download.
 *
 *   npx tsx bench/audit-reads.ts                     SQLite, in a temporary folder
 *   AUDIT_BENCH_DIR=/tmp/audit-bench npx tsx ...     SQLite, kept there for the next run
 *   DATABASE_URL=postgres://… npx tsx ...            PostgreSQL (schema audit_bench, kept)
 *   AUDIT_BENCH_ENTRIES=600000 (the default)         how many entries the workspace holds
 *   AUDIT_BENCH_ONLY=page                            only the reads whose name holds that text
 */
const ENTRIES = Number(process.env.AUDIT_BENCH_ENTRIES ?? 600_000);
const USER = 'usr_auditbench';
const RARE_ACTOR = 'rare@example.com';
const ACTORS = ['ci', 'deploy', 'alice@example.com', 'bob@example.com', 'carol@example.com'];
const ACTIONS = ['tag.updated', 'tag.created', 'tag.deleted', 'file.uploaded', 'folder.updated', 'webhook.tested'];
const START = Date.UTC(2026, 0, 1);
/** The entries spread over 300 days, the newest last. */
const SPAN_MS = 300 * 86_400_000;

const keptDir = process.env.AUDIT_BENCH_DIR;
const dataDir = keptDir ?? mkdtempSync(join(tmpdir(), 'audit-bench-'));
const databaseUrl = process.env.DATABASE_URL;
const config = loadConfig({
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  SECRET_KEY: 'b'.repeat(64),
  ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: 'audit_bench' } : {}),
});
const services = await createServices(config, { command: true });

function entry(i: number): AuditLogTable {
  const rare = i % 120_000 === 7;
  const actor = rare ? RARE_ACTOR : ACTORS[i % ACTORS.length]!;
  return {
    id: `aud_${String(i).padStart(26, '0')}`,
    created_at: new Date(START + Math.floor((i / ENTRIES) * SPAN_MS)).toISOString(),
    organization_id: null,
    owner_id: USER,
    environment: i % 4 === 0 ? null : 'live',
    actor_type: actor.includes('@') ? 'user' : 'key',
    actor_id: actor.includes('@') ? `usr_${actor}` : `key_${actor}`,
    actor_name: actor,
    action: i % 1000 === 3 ? 'key.disabled' : ACTIONS[i % ACTIONS.length]!,
    target_id: `tag_${i % 5000}`,
    ip: '203.0.113.0',
    request_id: `req_${i}`,
    details: i % 2 === 0 ? '{"fields":"title"}' : null,
  };
}

const present = Number(
  (
    await services.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('owner_id', '=', USER)
      .executeTakeFirstOrThrow()
  ).n,
);
if (present !== ENTRIES) {
  await services.db.deleteFrom('audit_log').where('owner_id', '=', USER).execute();
  const started = performance.now();
  for (let i = 0; i < ENTRIES; i += 2000) {
    const rows = Array.from({ length: Math.min(2000, ENTRIES - i) }, (_, j) => entry(i + j));
    await services.db.insertInto('audit_log').values(rows).execute();
  }
  console.log(`wrote ${ENTRIES.toLocaleString('en-US')} entries in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

const reader: AuditReader = {
  userId: USER,
  email: 'bench@example.com',
  organizationId: null,
  environment: 'live',
  plan: 'enterprise',
  permissions: [],
};

/**
 * Runs `work` while a 1 ms timer notes the longest gap between its runs (the worst event-loop
 * lap) and the most CPU time the process spent within one gap: on a machine shared with other
 * work the wall-clock gap also counts the time the thread waited for a core.
 */
async function worstLap(work: () => Promise<string>) {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let worstMs = 0;
  let worstCpuMs = 0;
  const lap = () => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    worstMs = Math.max(worstMs, now - last);
    worstCpuMs = Math.max(worstCpuMs, (cpu.user + cpu.system) / 1000);
    last = now;
    lastCpu = process.cpuUsage();
  };
  const timer = setInterval(lap, 1);
  await setImmediate();
  last = performance.now();
  lastCpu = process.cpuUsage();
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  lap();
  clearInterval(timer);
  return { worstMs, worstCpuMs, seconds, result };
}

const page =
  (query: AuditQuery, offset = 0) =>
  async () => {
    const { total, entries } = await listAuditLog(services, reader, { ...query, limit: 50, offset });
    return `total ${total}, ${entries.length} on the page, first ${entries[0]?.created_at ?? '-'}`;
  };
const csv = (query: AuditQuery) => async () => {
  let lines = 0;
  let bytes = 0;
  for await (const chunk of await auditLogCsv(services, reader, query)) {
    lines += chunk.split('\n').length - 1;
    bytes += chunk.length;
  }
  return `${lines - 1} rows, ${(bytes / 1e6).toFixed(1)} MB`;
};

const steps: Array<[string, () => Promise<string>]> = [
  ['page 1', page({})],
  ['page at offset 500000', page({}, 500_000)],
  [`actor ${RARE_ACTOR}`, page({ actor: RARE_ACTOR })],
  ['action key.disabled', page({ action: 'key.disabled' })],
  ['action tag.updated, offset 90000', page({ action: 'tag.updated' }, 90_000)],
  ['from 2026-06-01 to 2026-06-30', page({ from: '2026-06-01', to: '2026-06-30' })],
  ['CSV, all', csv({})],
  [`CSV, actor ${RARE_ACTOR}`, csv({ actor: RARE_ACTOR })],
];
console.log(`${databaseUrl ? 'PostgreSQL' : 'SQLite'}, ${ENTRIES.toLocaleString('en-US')} entries in one workspace`);
const only = process.env.AUDIT_BENCH_ONLY;
for (const [name, work] of steps.filter(([name]) => !only || name.includes(only))) {
  const { worstMs, worstCpuMs, seconds, result } = await worstLap(work);
  const figures = `worst lap ${worstMs.toFixed(1).padStart(7)} ms (CPU ${worstCpuMs.toFixed(1).padStart(7)} ms)`;
  console.log(`${name.padEnd(36)} ${figures}   ${seconds.toFixed(2).padStart(6)} s   ${result}`);
}
await services.close();
if (!keptDir) rmSync(dataDir, { recursive: true, force: true });
