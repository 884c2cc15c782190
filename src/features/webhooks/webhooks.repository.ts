import { CompiledQuery, sql } from 'kysely';
import { isPostgres, type Db } from '../../db/database.js';
import { claimSkippingLocked } from '../../db/locks.js';
import type { DeliveriesTable, DeliveryAttemptsTable, DeliveryStatus, EventsTable, WebhooksTable } from '../../db/schema.js';
import { inScope, type Scope } from '../accounts/index.js';
import { transaction } from '../../db/transaction.js';
import { SEALED_PREFIX } from '../../lib/sealed-secrets.js';
import { preparedOnPostgres } from '../../perf/pg-prepared-statements.js';

/** All SQL for webhooks, deliveries and their attempts. */

export function findWebhook(db: Db, id: string) {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export function insertWebhook(db: Db, row: WebhooksTable) {
  return db.insertInto('webhooks').values(row).execute();
}

export function updateWebhookRow(db: Db, id: string, changes: Partial<WebhooksTable>) {
  return db.updateTable('webhooks').set(changes).where('id', '=', id).execute();
}

/** Webhooks whose secret is still in clear (stored before secrets were sealed). */
export function plaintextSecrets(db: Db, limit: number) {
  return db
    .selectFrom('webhooks')
    .select(['id', 'secret'])
    .where(sql<string>`substr(secret, 1, ${sql.lit(SEALED_PREFIX.length)})`, '<>', SEALED_PREFIX)
    .limit(limit)
    .execute();
}

/** The secrets of the webhooks after `afterId`, in id order: every one, a page at a time. */
export function secretsAfter(db: Db, afterId: string, limit: number) {
  return db.selectFrom('webhooks').select(['id', 'secret']).where('id', '>', afterId).orderBy('id').limit(limit).execute();
}

/** Replaces a stored secret by another form of it, only if it is still `previous` (not changed meanwhile). */
export async function replaceSecret(db: Db, id: string, previous: string, secret: string): Promise<boolean> {
  const result = await db.updateTable('webhooks').set({ secret }).where('id', '=', id).where('secret', '=', previous).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function deleteWebhookRow(db: Db, id: string) {
  return db.deleteFrom('webhooks').where('id', '=', id).execute();
}

export async function countWebhooks(db: Db, scope: Scope): Promise<number> {
  const row = await db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where(inScope(scope))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function listWebhooks(db: Db, scope: Scope, query: { enabled?: boolean; limit: number; offset: number }) {
  let base = db.selectFrom('webhooks').where(inScope(scope));
  if (query.enabled !== undefined) base = base.where('enabled', '=', query.enabled ? 1 : 0);
  const { total } = await base.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow();
  const rows = await base.selectAll().orderBy('id', 'desc').limit(query.limit).offset(query.offset).execute();
  return { total: Number(total), rows };
}

/** The webhook queues' depths (for metrics): both counts read an index. */
export async function queueDepths(db: Db): Promise<{ events: number; deliveries: number }> {
  const [events, deliveries] = await Promise.all([
    db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('dispatched_at', 'is', null)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow(),
  ]);
  return { events: Number(events.count), deliveries: Number(deliveries.count) };
}

export async function webhookStats(db: Db, webhookId: string) {
  const rows = await db
    .selectFrom('deliveries')
    .select(['status', (eb) => eb.fn.countAll<number | string>().as('count'), (eb) => eb.fn.max('delivered_at').as('last')])
    .where('webhook_id', '=', webhookId)
    .groupBy('status')
    .execute();
  const count = (status: DeliveryStatus) => Number(rows.find((r) => r.status === status)?.count ?? 0);
  const last =
    rows
      .map((r) => r.last)
      .filter((v): v is string => v !== null)
      .sort()
      .at(-1) ?? null;
  return {
    total_deliveries: rows.reduce((sum, r) => sum + Number(r.count), 0),
    successful: count('success'),
    failed: count('failed'),
    last_delivery_at: last,
  };
}

/**
 * The newest delivery of each of these webhooks that `scope` reaches and that has one: one probe
 * of deliveries_webhook_idx a webhook.
 */
export function latestDeliveries(db: Db, scope: Scope, webhookIds: string[]) {
  if (webhookIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .selectAll('d')
    .where(inScope(scope, 'w'))
    .where('d.webhook_id', 'in', webhookIds)
    .where('d.id', '=', (eb) =>
      eb
        .selectFrom('deliveries as newest')
        .select((inner) => inner.fn.max('newest.id').as('id'))
        .whereRef('newest.webhook_id', '=', 'd.webhook_id'),
    )
    .execute();
}

export function insertDelivery(db: Db, row: DeliveriesTable) {
  return db.insertInto('deliveries').values(row).execute();
}

export function insertDeliveries(db: Db, rows: DeliveriesTable[]) {
  return rows.length === 0
    ? Promise.resolve()
    : db
        .insertInto('deliveries')
        .values(rows)
        .execute()
        .then(() => undefined);
}

export function findDelivery(db: Db, webhookId: string, id: string) {
  return db.selectFrom('deliveries').selectAll().where('id', '=', id).where('webhook_id', '=', webhookId).executeTakeFirst();
}

/**
 * A page of deliveries and their total from one statement (a window count): the worker changes
 * statuses all the time, and a separate count could disagree with the rows it goes with.
 */
export async function listDeliveries(db: Db, webhookId: string, query: { status?: DeliveryStatus; limit: number; offset: number }) {
  let base = db.selectFrom('deliveries').where('webhook_id', '=', webhookId);
  if (query.status) base = base.where('status', '=', query.status);
  const page = await base
    .selectAll()
    .select(sql<number | string>`count(*) over ()`.as('total_count'))
    .orderBy('id', 'desc')
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  const rows = page.map(({ total_count: _total, ...row }) => row);
  if (page.length > 0) return { total: Number(page[0]!.total_count), rows };
  // Past the last page the window count has no row to ride on.
  const { total } = await base.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow();
  return { total: Number(total), rows };
}

/**
 * Takes a failed delivery for one manual attempt, atomically: false when it is no longer failed
 * (a simultaneous retry took it). It is leased and due, so if this process dies mid-attempt the
 * worker makes the attempt once the lease has run out.
 */
export async function claimFailedDelivery(db: Db, id: string, input: { now: string; leaseUntil: string }): Promise<boolean> {
  const result = await db
    .updateTable('deliveries')
    .set({ status: 'pending', next_attempt_at: input.now, claimed_until: input.leaseUntil, updated_at: input.now })
    .where('id', '=', id)
    .where('status', '=', 'failed')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function listAttempts(db: Db, deliveryId: string) {
  return db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('attempt').execute();
}

export function insertAttempt(db: Db, row: DeliveryAttemptsTable) {
  return db.insertInto('delivery_attempts').values(row).execute();
}

export function updateDeliveryRow(db: Db, id: string, changes: Partial<DeliveriesTable>) {
  return db.updateTable('deliveries').set(changes).where('id', '=', id).execute();
}

/** Gives up the leases of claimed deliveries that were not sent: due again at once, to any worker. */
export async function releaseLeases(db: Db, ids: string[]): Promise<void> {
  // Chunked: SQLite caps the number of bound parameters in one statement.
  for (let i = 0; i < ids.length; i += 200) {
    await db
      .updateTable('deliveries')
      .set({ claimed_until: null })
      .where('id', 'in', ids.slice(i, i + 200))
      .where('status', '=', 'pending')
      .execute();
  }
}

/**
 * Events not yet turned into deliveries, oldest first. On PostgreSQL the rows are locked and
 * locked rows skipped, so several workers never dispatch the same event.
 */
export function claimUndispatchedEvents(trx: Db, limit: number): Promise<EventsTable[]> {
  const query = trx.selectFrom('events').selectAll().where('dispatched_at', 'is', null).orderBy('id').limit(limit);
  return claimSkippingLocked(trx, query).execute();
}

export function markEventsDispatched(trx: Db, ids: string[], at: string) {
  return trx.updateTable('events').set({ dispatched_at: at }).where('id', 'in', ids).execute();
}

/** Enabled webhooks of the event's owner scope and environment that subscribe to its kind. */
/**
 * The enabled webhooks of an event's scope, as fixed texts: the dispatcher asks for the scopes of
 * every batch of events, and link clicks for those of every group (analytics/click-recorder.ts),
 * so on PostgreSQL they run as prepared statements, planned once per connection
 * (src/perf/README.md).
 */
const SUBSCRIBED = {
  organization: 'SELECT id, events FROM webhooks WHERE environment = $1 AND enabled = 1 AND organization_id = $2',
  personal: 'SELECT id, events FROM webhooks WHERE environment = $1 AND enabled = 1 AND owner_id = $2 AND organization_id IS NULL',
};
const SUBSCRIBED_TEXTS = {
  postgres: { organization: preparedOnPostgres(SUBSCRIBED.organization), personal: preparedOnPostgres(SUBSCRIBED.personal) },
  sqlite: { organization: SUBSCRIBED.organization.replace(/\$\d/g, '?'), personal: SUBSCRIBED.personal.replace(/\$\d/g, '?') },
};

export async function subscribedWebhooks(
  trx: Db,
  event: Pick<EventsTable, 'environment' | 'owner_id' | 'organization_id'>,
): Promise<Array<Pick<WebhooksTable, 'id' | 'events'>>> {
  const texts = SUBSCRIBED_TEXTS[isPostgres(trx) ? 'postgres' : 'sqlite'];
  const query = event.organization_id
    ? CompiledQuery.raw(texts.organization, [event.environment, event.organization_id])
    : CompiledQuery.raw(texts.personal, [event.environment, event.owner_id]);
  return (await trx.executeQuery<Pick<WebhooksTable, 'id' | 'events'>>(query)).rows;
}

function dueDeliveries(db: Db, now: string) {
  return db
    .selectFrom('deliveries')
    .innerJoin('webhooks', 'webhooks.id', 'deliveries.webhook_id')
    .where('deliveries.status', '=', 'pending')
    .where('deliveries.next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('deliveries.claimed_until', 'is', null), eb('deliveries.claimed_until', '<', now)]))
    .where('webhooks.enabled', '=', 1);
}

/**
 * Leases due deliveries to this worker until `leaseUntil`, oldest first, at most `limit` in all
 * and at most `roomOf(webhook)` per webhook, so one webhook's backlog never takes every slot.
 * Webhooks with no room are left out of the scan. On PostgreSQL, FOR UPDATE SKIP LOCKED keeps
 * workers off each other's rows.
 */
export async function claimDueDeliveries(
  db: Db,
  input: { now: string; leaseUntil: string; limit: number; full: string[]; roomOf: (webhookId: string) => number },
) {
  return transaction(db, async (trx) => {
    let query = dueDeliveries(trx, input.now)
      .select(['deliveries.id', 'deliveries.webhook_id'])
      .orderBy('deliveries.next_attempt_at')
      .orderBy('deliveries.id')
      // Read past the limit so webhooks further down the queue still get their share.
      .limit(input.limit * 4);
    if (input.full.length > 0) query = query.where('deliveries.webhook_id', 'not in', input.full);
    const due = await claimSkippingLocked(db, query, 'deliveries').execute();
    const taken = new Map<string, number>();
    const ids: string[] = [];
    for (const row of due) {
      const count = taken.get(row.webhook_id) ?? 0;
      if (count >= input.roomOf(row.webhook_id)) continue;
      taken.set(row.webhook_id, count + 1);
      ids.push(row.id);
      if (ids.length === input.limit) break;
    }
    if (ids.length === 0) return [];
    await trx.updateTable('deliveries').set({ claimed_until: input.leaseUntil }).where('id', 'in', ids).execute();
    return trx
      .selectFrom('deliveries')
      .innerJoin('webhooks', 'webhooks.id', 'deliveries.webhook_id')
      .selectAll('deliveries')
      .select(['webhooks.url', 'webhooks.secret', 'webhooks.headers'])
      .where('deliveries.id', 'in', ids)
      .execute();
  });
}

export type ClaimedDelivery = Awaited<ReturnType<typeof claimDueDeliveries>>[number];

/** Deliveries (and, through the cascade, their attempts) and dispatched events older than `before`. */
export async function purgeDeliveriesBefore(db: Db, before: string) {
  const deliveries = await db.deleteFrom('deliveries').where('created_at', '<', before).where('status', '!=', 'pending').executeTakeFirst();
  const events = await db.deleteFrom('events').where('created_at', '<', before).where('dispatched_at', 'is not', null).executeTakeFirst();
  return { deliveries: Number(deliveries.numDeletedRows), events: Number(events.numDeletedRows) };
}
