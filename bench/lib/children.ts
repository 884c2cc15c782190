import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { pinnedCommand } from './cpu.js';

/**
 * Child processes of the bench. Every one is registered here so a single `stopAll()` (on
 * success, on error, on Ctrl-C) leaves nothing running: a stray server would keep the port
 * and skew the next run.
 */
const running = new Set<ChildProcess>();

export interface Child {
  process: ChildProcess;
  /** File receiving the child's stdout and stderr. */
  logFile: string;
  /** The last lines the child wrote, for error messages. */
  logTail(lines?: number): string;
  /** Rejects as soon as the child exits, so waits on it fail fast instead of timing out. */
  exited: Promise<never>;
}

/**
 * Starts `node <args>`. Output goes to a file rather than a pipe: the parent does not spend CPU
 * reading it while it generates load, and a chatty child (LOG_LEVEL=info) can never block on a
 * full pipe.
 */
export function startNode(
  name: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; logFile: string; core?: number },
): Child {
  const fd = openSync(options.logFile, 'a');
  // process.execPath is plain node even under tsx (tsx passes its loader as execArgv, which
  // spawn does not inherit), so the service and the baseline run on the same runtime. taskset
  // execs node in its own process, so the child's pid is node's.
  const [command, argv] = pinnedCommand(options.core, process.execPath, args);
  const child = spawn(command, argv, { cwd: options.cwd, env: options.env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  running.add(child);
  const logTail = (lines = 20) => {
    try {
      return readFileSync(options.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  };
  const exited = new Promise<never>((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      running.delete(child);
      reject(new Error(`${name} exited (${signal ?? `code ${code}`}); its last output:\n${logTail()}`));
    });
  });
  // Nobody may be awaiting `exited` when the child ends normally; that is not an error.
  exited.catch(() => {});
  return { process: child, logFile: options.logFile, logTail, exited };
}

/** SIGTERM (the service shuts down cleanly on it), then SIGKILL if it is still there. */
export async function stop(child: ChildProcess, graceMs = 5000): Promise<void> {
  // No pid: it never started, and no 'exit' would ever come.
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await gone;
  clearTimeout(timer);
  running.delete(child);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => stop(child)));
}

/** Last resort from a synchronous 'exit' handler, where nothing can be awaited. */
export function killAllNow(): void {
  for (const child of running) child.kill('SIGKILL');
}

/**
 * A port that was free a moment ago. The service cannot report the port it bound (PORT=0 is
 * only logged at info level), so the bench picks one; the window for a clash is tiny.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 2xx or 3xx; fails when the child dies or the deadline passes. */
export async function waitForHttp(url: string, child: Child, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gaveUp = false;
  const poll = async () => {
    // `gaveUp` stops the loop once the child has died, so it cannot keep the process alive.
    while (!gaveUp) {
      try {
        // A redirect answers too (a baseline replaying one): it is not followed.
        const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(1000) });
        await response.arrayBuffer();
        if (response.status < 400) return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms; last output:\n${child.logTail()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  try {
    await Promise.race([poll(), child.exited]);
  } finally {
    gaveUp = true;
  }
}
