import { freePort, startNode, stop, waitForHttp } from './children.js';

/** One running tagsvc process. */
export interface Service {
  baseUrl: string;
  logFile: string;
  close(): Promise<void>;
}

/** Starts `tagsvc serve` with `env` (data, variant, LOG_LEVEL) and waits until it answers. */
export async function startService(options: { root: string; name: string; env: NodeJS.ProcessEnv; logFile: string }): Promise<Service> {
  const port = await freePort();
  const env = { ...options.env, PORT: String(port), HOST: '127.0.0.1' };
  const baseUrl = `http://127.0.0.1:${port}`;
  // --no-worker: background jobs would compete for the CPU and make runs less repeatable.
  const child = startNode(options.name, ['bin/tagsvc', 'serve', '--no-worker'], { env, cwd: options.root, logFile: options.logFile });
  try {
    await waitForHttp(`${baseUrl}/healthz`, child);
  } catch (error) {
    // The start-up error is the one worth reporting, not a failed stop after it.
    await stop(child.process).catch(() => {});
    throw error;
  }
  return { baseUrl, logFile: options.logFile, close: () => stop(child.process) };
}
