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
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const timer = setInterval(() => checkpoint.run(), workerData.everyMs);
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
 * waits for, or blocks, the server's writes. Should the thread fail, the server's connection
 * takes checkpointing back, so the log never grows without bound.
 */
export function checkpointInBackground(sqlite: SQLite.Database, file: string): { stop(): Promise<void> } {
  sqlite.pragma('wal_autocheckpoint = 0');
  const worker = new Worker(CHECKPOINTER_SOURCE, {
    eval: true,
    workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), file, everyMs: CHECKPOINT_EVERY_MS },
  });
  // A process that never closes its database still exits.
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.once('error', () => {
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  });
  return {
    async stop() {
      // Held until it has exited: awaiting an unreferenced thread would let the process end here.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
