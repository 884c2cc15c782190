import { freePort, startNode, stop, waitForHttp } from './children.js';

/** One running tagsvc process. */
export interface Service {
  baseUrl: string;
  /** The process id, for scenarios that watch its memory (/proc/<pid>/status). */
  pid: number;
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
}

/** Starts `tagsvc serve` with `env` (data, variant, LOG_LEVEL) and waits until it answers. */
export async function startService(options: ServiceOptions): Promise<Service> {
  const port = await freePort();
  const env = { ...options.env, PORT: String(port), HOST: '127.0.0.1' };
  const baseUrl = `http://127.0.0.1:${port}`;
  // --no-worker unless asked: background jobs would compete for the CPU and make runs less
  // repeatable; only the scenarios that measure the worker (webhooks) want it.
  const args = ['bin/tagsvc', 'serve', ...(options.worker ? [] : ['--no-worker'])];
  const child = startNode(options.name, args, { env, cwd: options.root, logFile: options.logFile });
  try {
    await waitForHttp(`${baseUrl}/healthz`, child);
  } catch (error) {
    // The start-up error is the one worth reporting, not a failed stop after it.
    await stop(child.process).catch(() => {});
    throw error;
  }
  return { baseUrl, pid: child.process.pid!, logFile: options.logFile, close: () => stop(child.process) };
}
