import { setImmediate } from 'node:timers/promises';
import { isPostgres, type Db } from '../../db/database.js';
import { lockViewRollup } from '../../db/locks.js';
import { transaction } from '../../db/transaction.js';
import { emitAll, type AnyEventInput, type EventPayloads, type EventType } from '../events/index.js';
import { subscribedEventTypes } from '../webhooks/index.js';
import * as repo from './ingestion.repository.js';

/**
 * Views ingested in one transaction (give or take a group): short enough not to hold the database
 * (or SQLite's thread) for long.
 */
const VIEWS_PER_TRANSACTION = 2000;

/**
 * On PostgreSQL the inbox is vacuumed once this process has ingested so many views since it
 * last did: at 10,000 views a second, every two seconds. Without it, a look for the oldest
 * groups skips every row taken since the last vacuum.
 */
const VACUUM_EVERY = 20_000;
let ingestedSinceVacuum = 0;

/**
 * Ingests the inbox (the records pages committed, see view-recorder.ts): stores each view's row,
 * adds it to the rollups and writes its tag.viewed / qr.scanned events, in transactions of about
 * 2,000 views (whole groups), with a turn of the event loop between them, until none is left.
 * Each record leaves the inbox in the transaction that stores and counts its view, so a view is
 * counted exactly once, however many processes ingest at the same time. Reports, beacons and
 * exports call this before they read, so they see every view answered before they started.
 * Returns how many records were ingested.
 */
export async function rollUpViews(db: Db): Promise<number> {
  let rolled = 0;
  // Outside a transaction first: the common case, an empty inbox, costs one read.
  if (!(await repo.anyInboxView(db))) return 0;
  for (;;) {
    const count = await transaction(db, (trx) => rollUpBatch(trx));
    rolled += count;
    if (isPostgres(db)) ingestedSinceVacuum += count;
    if (count < VIEWS_PER_TRANSACTION) return rolled;
    // On SQLite a transaction's statements run back to back on the thread that answers every
    // request: without a turn of the event loop between transactions, a second's worth of views
    // held every request until all of it was ingested.
    await setImmediate();
  }
}

/**
 * Vacuums the inbox when it is due (see VACUUM_EVERY); the worker's job calls it, so a read that
 * ingests never waits for a vacuum, nor fails with one.
 */
export async function vacuumInboxIfDue(db: Db): Promise<void> {
  if (ingestedSinceVacuum < VACUUM_EVERY) return;
  ingestedSinceVacuum = 0;
  await repo.vacuumInbox(db);
}

/** The same within a transaction the caller holds (a tag's deletion ingests the inbox first). */
export async function rollUpViewsIn(trx: Db): Promise<void> {
  while ((await rollUpBatch(trx)) >= VIEWS_PER_TRANSACTION);
}

async function rollUpBatch(trx: Db): Promise<number> {
  await lockViewRollup(trx);
  const taken = await repo.takeInboxBatch(trx, VIEWS_PER_TRANSACTION);
  if (taken === 0) return 0;
  await repo.storeBatch(trx);
  const events = await viewEvents(trx);
  if (events.length > 0) await emitAll(trx, events);
  return taken;
}

/**
 * tag.viewed for every view of the batch and qr.scanned for every scan — for the scopes where
 * an enabled webhook takes them. The dispatcher would drop the others unsent anyway (it matches
 * events to the webhooks enabled when it dispatches), and most accounts take no view events, so
 * writing and dispatching an event row for each of their views would be pure cost: the views
 * themselves are read only when some scope of the batch wants them.
 */
async function viewEvents(trx: Db): Promise<AnyEventInput[]> {
  const wanted = new Map<string, Set<EventType>>();
  const scopeKey = (view: { environment: string; owner_id: string; organization_id: string | null }) =>
    `${view.environment}|${view.organization_id ?? view.owner_id}`;
  for (const scope of await repo.batchScopes(trx)) {
    const types = await subscribedViewEvents(trx, scope);
    if (types.size > 0) wanted.set(scopeKey(scope), types);
  }
  if (wanted.size === 0) return [];
  const events: AnyEventInput[] = [];
  for (const view of await repo.batchViews(trx)) {
    const types = wanted.get(scopeKey(view));
    if (!types) continue;
    const data: EventPayloads['tag.viewed' | 'qr.scanned'] = {
      tag: { id: view.tag_id, short_id: view.short_id, title: view.title },
      view: { id: view.id, source: view.source, device: view.device, browser: view.browser, os: view.os, country: view.country },
    };
    const base = {
      environment: view.environment,
      ownerId: view.owner_id,
      organizationId: view.organization_id,
      tagId: view.tag_id,
      data,
      at: view.occurred_at,
    };
    if (types.has('tag.viewed')) events.push({ ...base, type: 'tag.viewed' });
    if (view.source === 'qr_scan' && types.has('qr.scanned')) events.push({ ...base, type: 'qr.scanned' });
  }
  return events;
}

async function subscribedViewEvents(trx: Db, scope: Parameters<typeof subscribedEventTypes>[1]): Promise<Set<EventType>> {
  const types = new Set<EventType>();
  for (const type of await subscribedEventTypes(trx, scope)) if (type === 'tag.viewed' || type === 'qr.scanned') types.add(type);
  return types;
}
