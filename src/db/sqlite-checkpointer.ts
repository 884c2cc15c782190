import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/** How often the committed pages of the write-ahead log are copied back into the database file. */
const CHECKPOINT_EVERY_MS = 1000;

/** The pages SQLite's own automatic checkpoint waits for, used again if the thread fails. */
const AUTOCHECKPOINT_PAGES = 1000;

// Plain JavaScript evaluated in the thread, so it runs the same from the sources and the build.
const CHECKPOINTER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file);
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
const timer = setInterval(run, workerData.everyMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints a SQLite database in WAL mode on a thread of its own. SQLite checkpoints on the
 * connection whose commit fills the log, and a checkpoint ends with an fsync of the database
 * file: on a busy disk hundreds of milliseconds (380 ms measured) during which the server's one
 * thread answered no one. So the server's connection never checkpoints, and a second connection
 * on this thread does it every second, PASSIVE: it copies what no reader still needs and never
 * waits for, or blocks, the server's writes.
 *
 * Once the whole log is copied, the next commit writes the log again from its start, and first
 * fsyncs the log's new header (without it, a power loss could replay stale pages): 620 ms on
 * the server's thread measured on a busy disk. So the thread makes that commit itself, at once:
 * it writes the database header's user_version unchanged, and leaves that frame in the log until
 * another connection commits, so the log is never copied whole when the server writes next. The
 * server's writes wait for the restart on a timer (sqlite-lock-wait.ts). Should the thread fail,
 * the server's connection takes checkpointing back, so the log never grows without bound.
 */
export function checkpointInBackground(
  sqlite: SQLite.Database,
  file: string,
  onFailure: (error: Error) => void,
): { stop(): Promise<void> } {
  sqlite.pragma('wal_autocheckpoint = 0');
  let worker: Worker | undefined;
  let stopped = false;
  let exited: Promise<void> = Promise.resolve();
  // Started in the next turn of the event loop, not in the turn that opens the database: a
  // thread started in that turn left every request of the process 6 to 8 µs slower for its
  // whole life (the bot page 30 against 23 µs of CPU, GET /v1/me 31 against 25, pinned to one
  // core or not), one started a turn later does not. The cause lies in V8 or Node, not found yet.
  setImmediate(() => {
    if (stopped) return;
    const thread = new Worker(CHECKPOINTER_SOURCE, {
      eval: true,
      workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), file, everyMs: CHECKPOINT_EVERY_MS },
    });
    // A process that never closes its database still exits.
    thread.unref();
    exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    thread.once('error', (error) => {
      if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
      onFailure(error);
    });
    worker = thread;
  });
  return {
    async stop() {
      stopped = true;
      if (!worker) return;
      // Held until it has exited: awaiting an unreferenced thread would let the process end here.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
