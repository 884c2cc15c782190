import { freePort, startNode, stop, waitForHttp } from './children.js';
import { databaseProcesses } from './cpu.js';

/** One running tagsvc process. */
export interface Service {
  baseUrl: string;
  /** The process id, for scenarios that watch its memory (/proc/<pid>/status). */
  pid: number;
  /** The processes that work for it: its own and, on PostgreSQL, the database's for it. */
  pids(): Promise<number[]>;
  logFile: string;
  close(): Promise<void>;
}

export interface ServiceOptions {
  root: string;
  name: string;
  env: NodeJS.ProcessEnv;
  logFile: string;
  /** Run the webhook worker and periodic jobs in the process (`serve` without --no-worker). */
  worker?: boolean;
  /** Core to pin the process to. */
  core?: number;
  /** PostgreSQL the service uses, whose processes working for it count towards its CPU. */
  databaseUrl?: string;
}

/** Starts `tagsvc serve` with `env` (data, variant, LOG_LEVEL) and waits until it answers. */
export async function startService(options: ServiceOptions): Promise<Service> {
  const port = await freePort();
  // The name its PostgreSQL connections carry (node-postgres reads PGAPPNAME), so the bench can
  // find the backends that work for this process.
  const applicationName = `tagsvc bench ${port}`;
  const env = { ...options.env, PORT: String(port), HOST: '127.0.0.1', PGAPPNAME: applicationName };
  const baseUrl = `http://127.0.0.1:${port}`;
  // --no-worker unless asked: background jobs would compete for the CPU and make runs less
  // repeatable; only the scenarios that measure the worker (webhooks) want it.
  const args = ['bin/tagsvc', 'serve', ...(options.worker ? [] : ['--no-worker'])];
  const child = startNode(options.name, args, { env, cwd: options.root, logFile: options.logFile, core: options.core });
  try {
    await waitForHttp(`${baseUrl}/healthz`, child);
  } catch (error) {
    // The start-up error is the one worth reporting, not a failed stop after it.
    await stop(child.process).catch(() => {});
    throw error;
  }
  const pid = child.process.pid!;
  const { databaseUrl } = options;
  // The cache feed's connection names itself after the schema (db/database.ts).
  const feedName = `tagsvc cache feed ${options.env.DATABASE_SCHEMA || 'public'}`.slice(0, 63);
  const pids = async () => (databaseUrl ? [pid, ...(await databaseProcesses(databaseUrl, [applicationName, feedName]))] : [pid]);
  return { baseUrl, pid, pids, logFile: options.logFile, close: () => stop(child.process) };
}
