import { sql, type ExpressionBuilder } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { inScope, type Scope } from '../accounts/index.js';

/** The pages of views and daily rows an export reads. */

/** Where a page of views starts: at an instant, after one, or after one view (instant and id). */
export type ViewsFrom = { at: string } | { after: string } | { afterView: { at: string; id: string } };

function fromInstant(from: ViewsFrom) {
  return (eb: ExpressionBuilder<Database, 'views'>) =>
    'at' in from
      ? eb('occurred_at', '>=', from.at)
      : 'after' in from
        ? eb('occurred_at', '>', from.after)
        : eb('occurred_at', '>=', from.afterView.at);
}

/**
 * The instant of the `scan`-th view (of every tag) from `from` and before `to`, read from the
 * time index alone; undefined when fewer are left. Views up to it are a window of about `scan`
 * views, which a page of viewsPage then reads and sorts whatever share of them it exports.
 */
export async function viewsWindowEnd(db: Db, from: ViewsFrom, to: string, scan: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('views')
    .select('occurred_at')
    .where(fromInstant(from))
    .where('occurred_at', '<', to)
    .orderBy('occurred_at')
    .limit(1)
    .offset(scan - 1)
    .executeTakeFirst();
  return row?.occurred_at;
}

/**
 * One page of views of several tags, oldest first, in (occurred_at, id) order, from `from` and
 * up to `through` (inclusive; the window viewsWindowEnd found) or else before `to`. The window
 * bounds what one query reads and sorts, however many views the tags have (the order spans
 * tags, so no index gives it: without a window each page sorted every view of the period).
 */
export function viewsPage(
  db: Db,
  tagIds: string[],
  from: ViewsFrom,
  until: { through: string } | { before: string },
  loggedOnly: boolean,
  limit: number,
) {
  let query = db
    .selectFrom('views')
    .selectAll()
    .where('tag_id', 'in', tagIds)
    .where(fromInstant(from))
    .where('occurred_at', 'through' in until ? '<=' : '<', 'through' in until ? until.through : until.before);
  if ('afterView' in from) {
    const { at, id } = from.afterView;
    query = query.where((eb) => eb(eb.refTuple('occurred_at', 'id'), '>', eb.tuple(at, id)));
  }
  if (loggedOnly) query = query.where('logged', '=', 1);
  return query.orderBy('occurred_at').orderBy('id').limit(limit).execute();
}

/**
 * One page of per tag and day rows (days with views), after the (day, tag_id) cursor: of the
 * tags named, else of every tag in the scope. The cursor is a row-value comparison, so both
 * databases seek to it in the (…, day, tag_id) index instead of rescanning from the start.
 */
export function dailyPage(
  db: Db,
  of: { scope: Scope } | { tagIds: string[] },
  days: { from: string; to: string },
  after: { day: string; tagId: string } | undefined,
  limit: number,
) {
  let query = db
    .selectFrom('tag_daily')
    .select(['day', 'tag_id', 'views', 'unique_views', 'qr_scans', 'direct_visits'])
    .where('day', '<', days.to)
    .where('views', '>', 0)
    .where((eb) => (after ? eb(eb.refTuple('day', 'tag_id'), '>', eb.tuple(after.day, after.tagId)) : eb('day', '>=', days.from)));
  query = 'scope' in of ? query.where(inScope(of.scope)) : query.where('tag_id', 'in', of.tagIds);
  return query.orderBy('day').orderBy('tag_id').limit(limit).execute();
}

/**
 * The per tag rows of one day in a time zone (days with views): its UTC hours [from, to) added
 * up per tag, with the distinct visitors of `visitorDay`, the UTC day whose noon it holds (see
 * calendar.ts). Of the tags named, else of every tag in the scope; in tag id order.
 */
export function zonedDayRows(
  db: Db,
  of: { scope: Scope } | { tagIds: string[] },
  hours: { from: string; to: string },
  visitorDay: string | undefined,
) {
  const visitors = visitorDay
    ? sql<number | string>`coalesce((SELECT d.unique_views FROM tag_daily d WHERE d.tag_id = h.tag_id AND d.day = ${visitorDay}), 0)`
    : sql<number>`0`;
  let query = db
    .selectFrom('tag_hourly as h')
    .innerJoin('tags', 'tags.id', 'h.tag_id')
    .select([
      'h.tag_id',
      (eb) => eb.fn.sum<number | string>('h.views').as('views'),
      visitors.as('unique_views'),
      (eb) => eb.fn.sum<number | string>('h.qr_scans').as('qr_scans'),
      (eb) => eb.fn.sum<number | string>('h.direct_visits').as('direct_visits'),
    ])
    .where('h.hour', '>=', hours.from)
    .where('h.hour', '<', hours.to);
  query = 'scope' in of ? query.where(inScope(of.scope, 'tags')) : query.where('h.tag_id', 'in', of.tagIds);
  return query
    .groupBy('h.tag_id')
    .having((eb) => eb.fn.sum('h.views'), '>', 0)
    .orderBy('h.tag_id')
    .execute();
}
