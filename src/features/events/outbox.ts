import { bulkInsert, type BulkInsert } from '../../perf/bulk-insert.js';
import type { Db } from '../../db/database.js';
import { afterCommit } from '../../db/transaction.js';
import type { Environment } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import type { EventOwner, EventPayloads, EventType } from './catalogue.js';

/** One event to record: its type, the row it is filed under, and its payload. */
export interface EventInput<T extends EventType = EventType> {
  type: T;
  environment: Environment;
  ownerId: string;
  organizationId: string | null;
  tagId: string | null;
  data: EventPayloads[T];
  /** ISO timestamp of the change. */
  at: string;
}

/** Any event, each type with its own payload (what a list of mixed events holds). */
export type AnyEventInput = { [T in EventType]: EventInput<T> }[EventType];

/** The event `type` of the tag `owner` with `data`, at `at`: filed under the tag's owner and organization. */
export function eventOf<T extends EventType>(
  owner: EventOwner & { id: string },
  type: T,
  data: EventPayloads[T],
  at: string,
): EventInput<T> {
  return {
    type,
    environment: owner.environment,
    ownerId: owner.owner_id,
    organizationId: owner.organization_id,
    tagId: owner.id,
    data,
    at,
  };
}

/** The body receivers get (DECISIONS.md, "Webhooks and events"). */
export interface EventBody<T extends EventType = EventType> {
  id: string;
  event: T;
  created_at: string;
  data: EventPayloads[T];
}

type EventRow = ReturnType<typeof eventRow>;

function eventRow<T extends EventType>(input: EventInput<T>) {
  const body: EventBody<T> = { id: newId('evt'), event: input.type, created_at: input.at, data: input.data };
  return {
    id: body.id,
    type: input.type,
    environment: input.environment,
    owner_id: input.ownerId,
    organization_id: input.organizationId,
    tag_id: input.tagId,
    payload: JSON.stringify(body),
    created_at: input.at,
    dispatched_at: null,
  };
}

const committedListeners = new Set<() => void>();

/**
 * Calls `listener` each time events this process wrote are committed: the delivery worker
 * sleeps while the outbox is empty and wakes on it. Returns the function that unsubscribes.
 */
export function onEventsCommitted(listener: () => void): () => void {
  committedListeners.add(listener);
  return () => committedListeners.delete(listener);
}

function announceAfterCommit(trx: Db): Promise<void> {
  return afterCommit(trx, () => {
    for (const listener of committedListeners) listener();
  });
}

/**
 * Records an event in the outbox. Call it with the transaction that makes the change, so a
 * committed change always yields its event and a rolled-back one never does.
 */
export async function emit<T extends EventType>(trx: Db, input: EventInput<T>): Promise<void> {
  await trx.insertInto('events').values(eventRow(input)).execute();
  await announceAfterCommit(trx);
}

const EVENT_COLUMNS = [
  'id',
  'type',
  'environment',
  'owner_id',
  'organization_id',
  'tag_id',
  'payload',
  'created_at',
  'dispatched_at',
] as const satisfies ReadonlyArray<keyof EventRow>;
const EVENTS: BulkInsert<EventRow> = { table: 'events', columns: EVENT_COLUMNS, values: (row) => EVENT_COLUMNS.map((c) => row[c]) };

/** Several events in the outbox at once, in the change's transaction (the events of a batch of views). */
export async function emitAll(trx: Db, inputs: readonly AnyEventInput[]): Promise<void> {
  await bulkInsert(
    trx,
    EVENTS,
    inputs.map((input) => eventRow(input)),
  );
  await announceAfterCommit(trx);
}

export function deleteTestEventsCreatedBefore(db: Db, before: string) {
  return db.deleteFrom('events').where('environment', '=', 'test').where('created_at', '<', before).executeTakeFirst();
}
