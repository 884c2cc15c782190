import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/** How often the committed pages of the write-ahead log are copied back into the database file. */
const CHECKPOINT_EVERY_MS = 1000;

/** The pages SQLite's own automatic checkpoint waits for, used by the connection while the thread is down. */
const AUTOCHECKPOINT_PAGES = 1000;

/** The first pause before a failed thread is started again, and the longest. */
const FIRST_RESTART_MS = 1000;
const LONGEST_RESTART_MS = 60_000;

// Plain JavaScript evaluated in the thread, so it runs the same from the sources and the build.
const CHECKPOINTER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// The driver's errors reach the main thread without their message (they are not plain Errors),
// so each failure is thrown anew as an Error that says its code and message.
function guarded(work) {
  try {
    return work();
  } catch (error) {
    const code = typeof error.code === 'string' && !String(error.message).includes(error.code) ? error.code + ': ' : '';
    throw new Error(code + error.message);
  }
}
const SQLite = require(workerData.driver);
const db = guarded(() => new SQLite(workerData.file));
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 1000');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const dataVersion = db.prepare('PRAGMA data_version').pluck();
const userVersion = db.prepare('PRAGMA user_version').pluck();
const restartLog = db.transaction(() => db.pragma('user_version = ' + Number(userVersion.get())));
// The data_version when the log was last copied whole and begun anew: until another connection
// commits, there is nothing to copy (the frame of the restart itself stays in the log, so the
// server's next write appends to it rather than begin the log anew).
let settled;
function run() {
  const version = dataVersion.get();
  if (version === settled) return;
  const [{ busy, log, checkpointed }] = checkpoint.all();
  if (busy !== 0 || checkpointed !== log) return;
  if (log > 0) {
    try {
      restartLog.immediate();
    } catch (error) {
      if (error.code === 'SQLITE_BUSY') return;
      throw error;
    }
  }
  settled = version;
}
// The main thread hands checkpointing to this one once a pass has run.
let running = false;
const timer = setInterval(() => {
  guarded(run);
  if (!running) parentPort.postMessage('running');
  running = true;
}, workerData.everyMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints a SQLite database in WAL mode on a thread of its own. SQLite checkpoints on the
 * connection whose commit fills the log, and a checkpoint ends with an fsync of the database
 * file: on a busy disk a long pause, during which the server's one thread answers no one. So
 * the server's connection never checkpoints, and a second connection on this thread does it
 * every second, PASSIVE: it copies what no reader still needs and never waits for, or blocks,
 * the server's writes.
 *
 * Once the whole log is copied, the next commit writes the log again from its start, and first
 * fsyncs the log's new header (without it, a power loss could replay stale pages): as long a
 * pause on a busy disk. So the thread makes that commit itself, at once: it writes the database
 * header's user_version unchanged, and leaves that frame in the log until another connection
 * commits, so the log is never copied whole when the server writes next. The server's writes
 * wait for the restart on a timer (sqlite-lock-wait.ts).
 *
 * Should the thread fail (a full disk: the checkpoint cannot grow the database file), the
 * server's connection checkpoints by itself meanwhile, so the log never grows without bound;
 * `onFailure` hears of each failure, and the thread is started again after a pause that doubles
 * with each failure in a row (restartDelayMs). Once a restarted thread has run a pass, it
 * checkpoints alone again.
 */
export function checkpointInBackground(
  sqlite: SQLite.Database,
  file: string,
  onFailure: (error: Error) => void,
): { stop(): Promise<void> } {
  let worker: Worker | undefined;
  let stopped = false;
  let exited: Promise<void> = Promise.resolve();
  let failuresInARow = 0;
  let restart: NodeJS.Timeout | undefined;

  const checkpointOnConnection = (pages: number) => {
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${pages}`);
  };

  function start(): void {
    if (stopped || !sqlite.open) return;
    const thread = new Worker(CHECKPOINTER_SOURCE, {
      eval: true,
      workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), file, everyMs: CHECKPOINT_EVERY_MS },
    });
    // A process that never closes its database still exits.
    thread.unref();
    let failure: Error | undefined;
    exited = new Promise<void>((resolve) =>
      thread.once('exit', (code) => {
        worker = undefined;
        resolve();
        if (!stopped) failed(failure ?? new Error(`the checkpoint thread ended with exit code ${code}`));
      }),
    );
    thread.once('error', (error) => {
      failure = error;
    });
    thread.once('message', () => {
      failuresInARow = 0;
      checkpointOnConnection(0);
    });
    worker = thread;
  }

  function failed(error: Error): void {
    checkpointOnConnection(AUTOCHECKPOINT_PAGES);
    onFailure(error);
    restart = setTimeout(start, restartDelayMs(++failuresInARow));
    restart.unref();
  }

  checkpointOnConnection(0);
  // Started in the next turn of the event loop, not in the turn that opens the database: a
  // thread started in that turn left every request of the process slower for its whole life
  // (src/perf/README.md), one started a turn later does not. The cause is not known yet.
  setImmediate(start);
  return {
    async stop() {
      stopped = true;
      clearTimeout(restart);
      if (!worker) return;
      // Held until it has exited: awaiting an unreferenced thread would let the process end here.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}

/**
 * The pause before the thread is started again after its `failures`-th failure in a row: 1 s,
 * doubling up to a minute, so a lasting cause (a disk that stays full) costs one attempt and one
 * log line a minute, and a passing one is over within seconds.
 */
export function restartDelayMs(failures: number): number {
  return Math.min(FIRST_RESTART_MS * 2 ** (failures - 1), LONGEST_RESTART_MS);
}
