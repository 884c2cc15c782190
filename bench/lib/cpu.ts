import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import pg from 'pg';

/**
 * CPU accounting of the processes a scenario measures. The deciding figure of a baseline
 * scenario is the server's CPU per request (utime + stime from /proc) rather than its
 * throughput: throughput depends on how much of the other core the load generator gets, CPU per
 * request does not.
 */

// Linux reports utime and stime in clock ticks; USER_HZ is 100 on every kernel we run on.
const TICKS_PER_SECOND = 100;

/** utime + stime of a process and all its threads, in seconds; 0 when it is gone. */
export function processCpuSeconds(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

export function totalCpuSeconds(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0);
}

/**
 * The cores the bench pins to: the servers to one, the load generator to the other, so neither
 * steals from the other and each side of a comparison runs alone on its core. Null on a
 * machine with one core or without taskset (util-linux): then nothing is pinned.
 */
export interface Pinning {
  server: number;
  load: number;
}

export function detectPinning(): Pinning | null {
  if (availableParallelism() < 2) return null;
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
  } catch {
    return null;
  }
  return { server: 0, load: 1 };
}

/** `command args` run on `core` when pinning is on. */
export function pinnedCommand(core: number | undefined, command: string, args: string[]): [string, string[]] {
  return core === undefined ? [command, args] : ['taskset', ['-c', String(core), command, ...args]];
}

/**
 * PostgreSQL's processes that work for the service: its backends (found by the
 * application_name the bench gives its connections, and the one its cache feed gives its own)
 * and the WAL writer, which flushes their commits. Other sessions' backends on a shared server
 * are left out.
 */
export async function databaseProcesses(databaseUrl: string, applicationNames: string[]): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE application_name = ANY($1) OR backend_type = 'walwriter'`,
      [applicationNames],
    );
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}
