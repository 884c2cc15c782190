import type { BulkInsert, InsertPart } from '../../perf/bulk-insert.js';
import type { Db } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';

export const EVENT_TYPES = [
  'tag.created',
  'tag.updated',
  'tag.deleted',
  'tag.viewed',
  'file.uploaded',
  'file.deleted',
  'qr.generated',
  'qr.scanned',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface EventInput {
  type: EventType;
  environment: Environment;
  ownerId: string;
  organizationId: string | null;
  tagId: string | null;
  data: Record<string, unknown>;
  /** ISO timestamp of the change. */
  at: string;
}

/** The body receivers get (DECISIONS.md, "Webhooks and events"). */
export interface EventBody {
  id: string;
  event: EventType;
  created_at: string;
  data: Record<string, unknown>;
}

type EventRow = ReturnType<typeof eventRow>;

function eventRow(input: EventInput) {
  const body: EventBody = { id: newId('evt'), event: input.type, created_at: input.at, data: input.data };
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

/**
 * Records an event in the outbox. Call it with the transaction that makes the change, so a
 * committed change always yields its event and a rolled-back one never does.
 */
export async function emit(trx: Db, input: EventInput): Promise<void> {
  await trx.insertInto('events').values(eventRow(input)).execute();
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

/** Several events as one insert, for insertAll() with the change's own rows (views record theirs so). */
export function eventsInsert(inputs: EventInput[]): InsertPart<EventRow> {
  return { spec: EVENTS, rows: inputs.map(eventRow) };
}

export function deleteTestEventsCreatedBefore(db: Db, before: string) {
  return db.deleteFrom('events').where('environment', '=', 'test').where('created_at', '<', before).executeTakeFirst();
}
