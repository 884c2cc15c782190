import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { lockTagRow } from '../../db/locks.js';

/** A stored view, and the time on page its beacon reports. */

export function findView(db: Db, id: string) {
  return db
    .selectFrom('views')
    .select(['id', 'tag_id', 'occurred_at', 'duration_seconds', 'device', 'country', 'visitor'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Time on page reported by a beacon: applied only when it grows the view's current time. After
 * its tag's row (see lockTagRow), the view row is locked (a no-op update: a row lock on
 * PostgreSQL, the write lock on SQLite)
 * and its time read under that lock, so concurrent beacons of one view apply one after another
 * and the view counts once in its hour's average. A stored view is counted in its hour and day
 * already (ingestion stores and counts it at once): they follow its time. Returns whether the
 * time grew.
 */
export async function growViewDuration(trx: Db, view: { id: string; tag_id: string; hour: string }, seconds: number): Promise<boolean> {
  await lockTagRow(trx, view.tag_id, 'key share');
  await trx
    .updateTable('views')
    .set((eb) => ({ duration_seconds: eb.ref('duration_seconds') }))
    .where('id', '=', view.id)
    .execute();
  const current = await trx.selectFrom('views').select('duration_seconds').where('id', '=', view.id).executeTakeFirst();
  if (!current || (current.duration_seconds !== null && seconds <= current.duration_seconds)) return false;
  const previous = current.duration_seconds;
  await trx.updateTable('views').set({ duration_seconds: seconds }).where('id', '=', view.id).execute();
  const grow = {
    duration_sum: sql<number>`duration_sum + ${seconds - (previous ?? 0)}`,
    duration_count: sql<number>`duration_count + ${previous === null ? 1 : 0}`,
  };
  await trx.updateTable('tag_hourly').set(grow).where('tag_id', '=', view.tag_id).where('hour', '=', view.hour).execute();
  await trx.updateTable('tag_daily').set(grow).where('tag_id', '=', view.tag_id).where('day', '=', view.hour.slice(0, 10)).execute();
  return true;
}
