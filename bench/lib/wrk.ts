import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pinnedCommand } from './cpu.js';
import type { LoadRequest, RunStats } from './load.js';

const run = promisify(execFile);

/**
 * Timed load from wrk (Debian's `wrk` package), one thread on its own core. wrk costs a
 * fraction of a JavaScript client's CPU per request, so one core of load keeps a server on the
 * other core busy, as the bare node:http server needs.
 */
export interface WrkOptions {
  connections: number;
  seconds: number;
  /** Core to pin wrk to; undefined: not pinned. */
  core?: number;
  /** Folder for the request script. */
  workDir: string;
}

export async function runWrk(baseUrl: string, request: LoadRequest, options: WrkOptions): Promise<RunStats> {
  const script = join(options.workDir, 'wrk-request.lua');
  writeFileSync(script, luaScript(request));
  const url = new URL(request.path, baseUrl).toString();
  const args = ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--latency', '-s', script, url];
  const [command, argv] = pinnedCommand(options.core, 'wrk', args);
  let stdout: string;
  try {
    ({ stdout } = await run(command, argv, { timeout: (options.seconds + 30) * 1000 }));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error('wrk is not installed: apt-get install -y wrk');
    throw error;
  }
  return parseWrk(stdout);
}

/** The request as wrk's Lua settings: built once by wrk, so each request costs it no Lua call. */
function luaScript(request: LoadRequest): string {
  const lines = [`wrk.method = ${lua(request.method)}`];
  for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`wrk.headers[${lua(name)}] = ${lua(value)}`);
  if (request.body !== undefined) lines.push(`wrk.body = ${lua(Buffer.from(request.body).toString('latin1'))}`);
  return `${lines.join('\n')}\n`;
}

/** A Lua string literal holding `value`'s bytes (latin1: one char a byte). */
function lua(value: string): string {
  return `"${[...value].map((c) => `\\${c.charCodeAt(0)}`).join('')}"`;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function latencyMs(text: string | undefined): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text ?? '');
  return match ? Number(match[1]) * UNIT_MS[match[2]!]! : Number.NaN;
}

/** wrk's report, e.g. "  123456 requests in 10.00s, ..." and "Non-2xx or 3xx responses: 12". */
export function parseWrk(output: string): RunStats {
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m),/.exec(output);
  if (!total) throw new Error(`wrk printed no request count:\n${output}`);
  const durationSeconds = (Number(total[2]) * UNIT_MS[total[3]!]!) / 1000;
  const totalRequests = Number(total[1]);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const [connect, read, write, timeouts] = socket ? socket.slice(1).map(Number) : [0, 0, 0, 0];
  const percentile = (p: number) => latencyMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(output)?.[1]);
  return {
    requestsPerSecond: totalRequests / durationSeconds,
    totalRequests,
    non2xx,
    // wrk counts responses by class only; the 2xx among them is what the checks need.
    statusCodes: { '2xx': totalRequests - non2xx, ...(non2xx > 0 ? { other: non2xx } : {}) },
    errors: connect! + read! + write! + timeouts!,
    timeouts: timeouts!,
    durationSeconds,
    latencyP50Ms: percentile(50),
    latencyP99Ms: percentile(99),
    cpuSeconds: 0,
  };
}
