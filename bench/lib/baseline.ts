import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startNode, stop, waitForHttp } from './children.js';

/** What the service answered once; the baseline repeats it for every request. */
export interface CapturedResponse {
  status: number;
  contentType: string;
  /** Every response header, lower-cased; scenarios check them, the baseline does not send them. */
  headers: Record<string, string>;
  body: Buffer;
}

export interface Baseline {
  baseUrl: string;
  pid: number;
  close(): Promise<void>;
}

/**
 * Starts bench/baseline-server.mjs in its own process, as the service is, so both pay for the
 * same process boundary and the parent's load generator never shares an event loop with them.
 */
export async function startBaseline(
  response: CapturedResponse,
  options: { root: string; workDir: string; name: string; core?: number },
): Promise<Baseline> {
  const bodyFile = join(options.workDir, `${options.name}.body`);
  writeFileSync(bodyFile, response.body);
  const port = await freePort();
  const child = startNode(`baseline for ${options.name}`, ['bench/baseline-server.mjs'], {
    cwd: options.root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      BODY_FILE: bodyFile,
      CONTENT_TYPE: response.contentType,
      STATUS: String(response.status),
    },
    logFile: join(options.workDir, `${options.name}.baseline.log`),
    core: options.core,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${baseUrl}/`, child);
  } catch (error) {
    await stop(child.process);
    throw error;
  }
  return { baseUrl, pid: child.process.pid!, close: () => stop(child.process) };
}
