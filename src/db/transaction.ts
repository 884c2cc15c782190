import type { Db } from './database.js';

type AfterCommit = () => void | Promise<void>;

/** The after-commit work of each open transaction (made by transaction() below). */
const pending = new WeakMap<Db, AfterCommit[]>();

/**
 * Runs `work` in one transaction, then the work its writes registered with afterCommit, in
 * order. Nothing registered runs when the transaction rolls back. Inside a transaction already,
 * `work` joins it.
 */
export async function transaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  const after: AfterCommit[] = [];
  const result = await db.transaction().execute((trx) => {
    pending.set(trx, after);
    return work(trx);
  });
  for (const run of after) await run();
  return result;
}

/**
 * Registers what must happen once a write is committed: a cache announcement, removing a blob
 * nothing refers to any more. Repositories call it beside the write that makes it necessary, so
 * no service can forget it. Outside a transaction the write is committed already: it runs now.
 */
export async function afterCommit(db: Db, run: AfterCommit): Promise<void> {
  const after = pending.get(db);
  if (after) after.push(run);
  else if (db.isTransaction) throw new Error('open transactions with transaction() (db/transaction.ts) so after-commit work runs');
  else await run();
}
