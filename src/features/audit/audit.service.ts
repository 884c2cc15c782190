import { setImmediate } from 'node:timers/promises';
import type { ServiceContext } from '../../context.js';
import { isPostgres, type Db } from '../../db/database.js';
import { transaction } from '../../db/transaction.js';
import type { AuditLogTable, Environment } from '../../db/schema.js';
import { ApiError, checkFields, forbidden, validationError } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { csvField } from '../../lib/csv.js';
import { newId } from '../../lib/ids.js';
import { networkOf } from '../../lib/ip.js';
import { isAuditAction, type AuditAction } from './actions.js';
import * as repo from './audit.repository.js';

/**
 * The audit log: who changed what, written by each service in the transaction of its change,
 * so a change and its entry commit or roll back together. Reads write nothing.
 *
 * The audit log sits left of accounts in the feature order (accounts records key and sign-in
 * changes), so it names its actor by shape: accounts' Actor and OPERATOR are AuditActors.
 */

/** Where a request came from: set on the actor by the front door that built it (never by the CLI). */
export interface RequestOrigin {
  requestId: string;
  /** The whole address, as the request came; the log keeps only its network (networkOf). */
  ip: string;
}

/** A user (dashboard) or an API key acting for one, in a workspace. */
export interface AuditPerson {
  userId: string;
  email: string;
  organizationId: string | null;
  environment: Environment;
  key?: { id: string; name: string };
  origin?: RequestOrigin;
}

/** Whoever acts: a person, the operator at the command line, or someone not signed in (a failed sign-in). */
export type AuditActor = AuditPerson | { operator: true } | { anonymous: true; origin?: RequestOrigin };

export interface AuditEntry {
  action: AuditAction;
  targetId?: string | null;
  /**
   * The workspace the entry belongs to: an organization, or a user's own space (organization
   * null). Defaults to the acting person's; the operator's and an anonymous entry without one
   * belong to the instance alone (only its owner sees them).
   */
  workspace?: { userId: string | null; organizationId: string | null };
  /** live or test, where the change is to a workspace's data. */
  environment?: Environment | null;
  /** Particulars worth keeping (a role, a plan); never a secret. */
  details?: Record<string, string | number | boolean | null>;
}

const isPerson = (actor: AuditActor): actor is AuditPerson => 'userId' in actor;

function actorColumns(actor: AuditActor): Pick<AuditLogTable, 'actor_type' | 'actor_id' | 'actor_name'> {
  if ('operator' in actor) return { actor_type: 'operator', actor_id: null, actor_name: 'operator' };
  if (!isPerson(actor)) return { actor_type: 'anonymous', actor_id: null, actor_name: null };
  if (actor.key) return { actor_type: 'key', actor_id: actor.key.id, actor_name: actor.key.name };
  return { actor_type: 'user', actor_id: actor.userId, actor_name: actor.email };
}

function workspaceOf(actor: AuditActor, entry: AuditEntry): { owner_id: string | null; organization_id: string | null } {
  const workspace = entry.workspace ?? (isPerson(actor) ? { userId: actor.userId, organizationId: actor.organizationId } : undefined);
  if (!workspace) return { owner_id: null, organization_id: null };
  if (workspace.organizationId) return { owner_id: null, organization_id: workspace.organizationId };
  return { owner_id: workspace.userId, organization_id: null };
}

/**
 * Writes the entry of a change, with `db` the change's transaction: one more INSERT in it.
 * Services call it beside the write it records.
 */
export async function recordAudit(ctx: ServiceContext, db: Db, actor: AuditActor, entry: AuditEntry): Promise<void> {
  const origin = 'origin' in actor ? actor.origin : undefined;
  await repo.insertEntry(db, {
    id: newId('aud'),
    created_at: isoNow(ctx.clock),
    ...workspaceOf(actor, entry),
    environment: entry.environment ?? null,
    ...actorColumns(actor),
    action: entry.action,
    target_id: entry.targetId ?? null,
    ip: origin ? networkOf(origin.ip) : null,
    request_id: origin?.requestId ?? null,
    details: entry.details ? JSON.stringify(entry.details) : null,
  });
}

/** One write and its entry in one transaction: for a change that is a single write. */
export function withAudit<T>(ctx: ServiceContext, actor: AuditActor, entry: AuditEntry, write: (trx: Db) => Promise<T>): Promise<T> {
  return transaction(ctx.db, async (trx) => {
    const result = await write(trx);
    await recordAudit(ctx, trx, actor, entry);
    return result;
  });
}

/** Who reads a log: a person as the API or the dashboard made them, with their plan and permissions. */
export interface AuditReader extends AuditPerson {
  plan: string;
  permissions: readonly string[];
}

/** The filters of a read: each optional; `from` and `to` are dates (YYYY-MM-DD, `to` inclusive) or ISO 8601 times. */
export interface AuditQuery {
  actor?: string;
  action?: string;
  from?: string;
  to?: string;
  /** The instance owner's whole-instance view (every workspace's entries and the instance's own). */
  instance?: boolean;
}

/** An entry as the API and the dashboard show it. */
export interface AuditEntryView {
  id: string;
  created_at: string;
  action: string;
  actor: { type: AuditLogTable['actor_type']; id: string | null; name: string | null };
  target_id: string | null;
  ip: string | null;
  request_id: string | null;
  environment: Environment | null;
  organization_id: string | null;
  user_id: string | null;
  details: Record<string, unknown> | null;
}

function toEntryView(row: AuditLogTable): AuditEntryView {
  return {
    id: row.id,
    created_at: row.created_at,
    action: row.action,
    actor: { type: row.actor_type, id: row.actor_id, name: row.actor_name },
    target_id: row.target_id,
    ip: row.ip,
    request_id: row.request_id,
    environment: row.environment,
    organization_id: row.organization_id,
    user_id: row.owner_id,
    details: row.details ? (JSON.parse(row.details) as Record<string, unknown>) : null,
  };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const DAY_MS = 86_400_000;
/** The first instant ISO text cannot write in its usual 24 characters (year 10000). */
const END_OF_TIME_MS = Date.UTC(10_000, 0, 1);

/** Whether YYYY-MM-DD names a day that exists (no 31 February). */
const isRealDate = (day: string) => DATE.test(day) && new Date(`${day}T00:00:00.000Z`).toISOString().slice(0, 10) === day;

/**
 * A bound as an ISO instant: a date's midnight UTC (`to`: the next day's, so the date is
 * included), or a time with its offset (`Z` or ±hh:mm: without one it would be read in the
 * server's zone). A `to` past the year 9999 bounds nothing.
 */
function bound(value: string | undefined, field: 'from' | 'to'): string | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = DATE.test(value)
    ? Date.parse(`${value}T00:00:00.000Z`) + (field === 'to' ? DAY_MS : 0)
    : TIME.test(value)
      ? Date.parse(value)
      : NaN;
  if (Number.isNaN(ms) || !isRealDate(value.slice(0, 10))) {
    throw validationError(field, `${field} must be a date (YYYY-MM-DD) or an ISO 8601 time with its offset (Z or ±hh:mm)`);
  }
  return ms >= END_OF_TIME_MS ? undefined : new Date(ms).toISOString();
}

/**
 * Whose log the reader sees, or a refusal. An API key: the Enterprise plan and `audit:read`
 * (analytics:read is not enough), its workspace's log. A dashboard user: their own space's log,
 * an organization's when they own or administer it, the whole instance's when they own it.
 */
async function workspaceToRead(ctx: ServiceContext, reader: AuditReader, instance: boolean | undefined): Promise<repo.AuditWorkspace> {
  if (reader.key) {
    if (reader.plan !== 'enterprise') throw forbidden('The audit log requires the Enterprise plan');
    if (!reader.permissions.includes('audit:read')) throw forbidden('This API key lacks the audit:read permission');
  } else if (instance) {
    if (!(await repo.isInstanceOwner(ctx.db, reader.userId))) throw forbidden('Only the instance owner sees the whole instance’s log');
    return 'instance';
  }
  if (!reader.organizationId) return { userId: reader.userId };
  if (!reader.key) {
    const role = await repo.roleInOrganization(ctx.db, reader.organizationId, reader.userId);
    if (role !== 'owner' && role !== 'admin') throw forbidden('Only an owner or admin of the organization sees its audit log');
  }
  return { organizationId: reader.organizationId };
}

async function readFilters(ctx: ServiceContext, reader: AuditReader, query: AuditQuery) {
  const { workspace, action, from, to } = await checkFields({
    workspace: () => workspaceToRead(ctx, reader, query.instance),
    action: () => {
      if (query.action && !isAuditAction(query.action)) throw validationError('action', `unknown action "${query.action}"`);
      return query.action || undefined;
    },
    from: () => bound(query.from, 'from'),
    to: () => bound(query.to, 'to'),
  });
  if (from !== undefined && to !== undefined && from >= to) {
    throw new ApiError('invalid_date_range', 'to must be after from (a date as to includes that day)', { field: 'to' });
  }
  // A key reads its own environment's log: a sandbox key never sees live data (DECISIONS.md).
  const environment = reader.key ? reader.environment : undefined;
  return { workspace, filters: { action, from, to, environment, actor: query.actor?.trim() || undefined } };
}

/**
 * How many of a workspace's entries one step of a read goes through. SQLite answers on the
 * thread that answers everyone, so a read of a large log (its exact total, a deep page, a
 * filter by actor or action, which no index serves) is done in steps of a few milliseconds
 * each, the thread given back between them: never one query over the whole log. PostgreSQL
 * counts off this thread, so its counting steps are larger (fewer round trips); the CSV's
 * steps are small on both, since each of their rows is turned into text on this thread.
 */
const COUNT_STEP = { sqlite: 2000, postgres: 50_000 };
const CSV_STEP = 500;

/**
 * The workspace's log within the dates, newest first, in consecutive stretches of `step`
 * entries (the last one holds what is left; `size` is known for the others), found on the
 * workspace's index alone, with a turn of the event loop before each but the first.
 */
async function* stretches(
  db: Db,
  workspace: repo.AuditWorkspace,
  filters: repo.EntryFilters,
  step: number,
): AsyncGenerator<{ range: repo.KeyRange; size?: number }> {
  let below: repo.EntryKey | undefined;
  for (;;) {
    const from = await repo.nthEntryBelow(db, workspace, filters, below, step);
    if (!from) {
      yield { range: { below } };
      return;
    }
    yield { range: { from, below }, size: step };
    below = from;
    await setImmediate();
  }
}

/**
 * A page of the reader's log, newest first, with the number of entries the filters match: both
 * counted stretch by stretch, so neither the total nor a deep offset holds SQLite's thread.
 */
export async function listAuditLog(ctx: ServiceContext, reader: AuditReader, query: AuditQuery & { limit: number; offset: number }) {
  const { workspace, filters } = await readFilters(ctx, reader, query);
  const { limit, offset } = query;
  const rows: AuditLogTable[] = [];
  let total = 0;
  const step = isPostgres(ctx.db) ? COUNT_STEP.postgres : COUNT_STEP.sqlite;
  for await (const { range, size } of stretches(ctx.db, workspace, filters, step)) {
    const count = size !== undefined && !repo.filtersRows(filters) ? size : await repo.countEntries(ctx.db, workspace, filters, range);
    if (rows.length < limit && total + count > offset) {
      const page = { limit: limit - rows.length, offset: Math.max(0, offset - total) };
      rows.push(...(await repo.listEntries(ctx.db, workspace, filters, range, page)));
    }
    total += count;
  }
  return { total, entries: rows.map(toEntryView) };
}

export const AUDIT_CSV_HEADER =
  'created_at,action,actor_type,actor_id,actor_name,target_id,ip,request_id,environment,organization_id,user_id,details';

function csvLine(row: AuditLogTable): string {
  const cells = [
    row.created_at,
    row.action,
    row.actor_type,
    row.actor_id,
    row.actor_name,
    row.target_id,
    row.ip,
    row.request_id,
    row.environment,
    row.organization_id,
    row.owner_id,
    row.details,
  ];
  return `${cells.map((cell) => csvField(cell ?? '')).join(',')}\n`;
}

/**
 * The reader's log as CSV, newest first, read stretch by stretch as it is sent (never the whole
 * log in memory, nor the thread held for it). Every cell goes through csvField: an email or a
 * key's name is anyone's text.
 */
export async function auditLogCsv(ctx: ServiceContext, reader: AuditReader, query: AuditQuery): Promise<AsyncIterable<string>> {
  const { workspace, filters } = await readFilters(ctx, reader, query);
  return (async function* () {
    yield `${AUDIT_CSV_HEADER}\n`;
    for await (const { range } of stretches(ctx.db, workspace, filters, CSV_STEP)) {
      const rows = await repo.listEntries(ctx.db, workspace, filters, range);
      if (rows.length > 0) yield rows.map(csvLine).join('');
    }
  })();
}

/**
 * Deletes entries older than AUDIT_RETENTION_DAYS, `batch` at a time (short transactions), and
 * gives the thread back between batches: `serve` runs the worker in the process that answers
 * requests, and a year's backlog deleted back to back held SQLite's thread for seconds.
 */
export async function purgeAuditLog(ctx: ServiceContext, options: { retentionDays: number; batch: number }): Promise<number> {
  const cutoff = new Date(ctx.clock.now().getTime() - options.retentionDays * 86_400_000).toISOString();
  let deleted = 0;
  for (;;) {
    const count = await repo.deleteEntriesBefore(ctx.db, cutoff, options.batch);
    deleted += count;
    if (count < options.batch) return deleted;
    await setImmediate();
  }
}
