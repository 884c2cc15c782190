import type { Db } from '../../db/database.js';
import type { AuditLogTable, Environment } from '../../db/schema.js';
import { bulkInsert, type BulkInsert } from '../../perf/bulk-insert.js';

/** All the SQL of the audit log. */

const COLUMNS = [
  'id',
  'created_at',
  'organization_id',
  'owner_id',
  'environment',
  'actor_type',
  'actor_id',
  'actor_name',
  'action',
  'target_id',
  'ip',
  'request_id',
  'details',
] as const satisfies readonly (keyof AuditLogTable)[];

/**
 * An entry's INSERT as SQL text (perf/bulk-insert.ts): every change of the service pays for it,
 * and building Kysely's query tree for thirteen columns cost more than the write itself.
 */
const ENTRY: BulkInsert<AuditLogTable> = {
  table: 'audit_log',
  columns: COLUMNS,
  values: (entry) => COLUMNS.map((column) => entry[column]),
};

export async function insertEntry(db: Db, entry: AuditLogTable): Promise<void> {
  await bulkInsert(db, ENTRY, [entry]);
}

/** Whose entries a reader sees: one organization's, one user's own space's, or the whole instance's. */
export type AuditWorkspace = { organizationId: string } | { userId: string } | 'instance';

export interface EntryFilters {
  /** A user's or key's id, or a user's email or key's name, exactly. */
  actor?: string;
  action?: string;
  /** Inclusive lower and exclusive upper bounds of created_at, ISO 8601. */
  from?: string;
  to?: string;
  /**
   * Only the entries of one environment: `test`, the sandbox's; `live`, live data's and the
   * account's own (keys, members, sign-ins: no environment). What an API key reads.
   */
  environment?: Environment;
}

/** An entry's place in the log's order, (created_at, id): the table's key on SQLite. */
export interface EntryKey {
  created_at: string;
  id: string;
}

/**
 * A stretch of the log in its order: the entries from `from` (included) up to `below`
 * (excluded); an end not given is the log's.
 */
export interface KeyRange {
  from?: EntryKey;
  below?: EntryKey;
}

const before = (a: EntryKey, b: EntryKey) => a.created_at < b.created_at || (a.created_at === b.created_at && a.id < b.id);

/**
 * The stretch the dates and `range` leave, as bounds on (created_at, id) alone: a date is the
 * key (date, ''), before every id. With the dates as bounds on created_at beside them, SQLite
 * searched the index by the dates and filtered the range row by row.
 */
function keyBounds(filters: EntryFilters, range: KeyRange): KeyRange {
  const lowest = filters.from ? { created_at: filters.from, id: '' } : undefined;
  const highest = filters.to ? { created_at: filters.to, id: '' } : undefined;
  const from = range.from && lowest ? (before(range.from, lowest) ? lowest : range.from) : (range.from ?? lowest);
  const below = range.below && highest ? (before(range.below, highest) ? range.below : highest) : (range.below ?? highest);
  return { from, below };
}

/**
 * The workspace's entries within the dates and `range`: what one index serves (the
 * organization's, the user's own space's, or the table itself for the instance), so a query
 * on it alone reads no row it does not return.
 */
function inWorkspace(db: Db, workspace: AuditWorkspace, filters: EntryFilters, range: KeyRange) {
  let query = db.selectFrom('audit_log');
  if (workspace !== 'instance') {
    query =
      'organizationId' in workspace
        ? query.where('organization_id', '=', workspace.organizationId)
        : query.where('owner_id', '=', workspace.userId).where('organization_id', 'is', null);
  }
  const { from, below } = keyBounds(filters, range);
  if (from) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '>=', eb.tuple(from.created_at, from.id)));
  if (below) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(below.created_at, below.id)));
  return query;
}

/** Whether the filters look at more than the workspace and the dates: then each entry's row is read. */
export const filtersRows = (filters: EntryFilters) => Boolean(filters.actor || filters.action || filters.environment);

function filtered(db: Db, workspace: AuditWorkspace, filters: EntryFilters, range: KeyRange) {
  let query = inWorkspace(db, workspace, filters, range);
  const { actor, action, environment } = filters;
  if (environment === 'test') query = query.where('environment', '=', 'test');
  if (environment === 'live') query = query.where((eb) => eb.or([eb('environment', '=', 'live'), eb('environment', 'is', null)]));
  if (actor) query = query.where((eb) => eb.or([eb('actor_id', '=', actor), eb('actor_name', '=', actor)]));
  if (action) query = query.where('action', '=', action);
  return query;
}

/**
 * The key of the `n`th entry below `below`, newest first, of the workspace within the dates
 * (the other filters aside): where a stretch of `n` entries ends, read from the workspace's
 * index alone; undefined when fewer are left.
 */
export async function nthEntryBelow(
  db: Db,
  workspace: AuditWorkspace,
  filters: EntryFilters,
  below: EntryKey | undefined,
  n: number,
): Promise<EntryKey | undefined> {
  return inWorkspace(db, workspace, filters, { below })
    .select(['created_at', 'id'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .offset(n - 1)
    .executeTakeFirst();
}

export async function countEntries(db: Db, workspace: AuditWorkspace, filters: EntryFilters, range: KeyRange = {}): Promise<number> {
  const row = await filtered(db, workspace, filters, range)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The entries the filters match within `range`, newest first: `limit` of them after `offset`, or all. */
export function listEntries(
  db: Db,
  workspace: AuditWorkspace,
  filters: EntryFilters,
  range: KeyRange,
  page: { limit?: number; offset?: number } = {},
): Promise<AuditLogTable[]> {
  let query = filtered(db, workspace, filters, range).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc');
  if (page.limit !== undefined) query = query.limit(page.limit).offset(page.offset ?? 0);
  return query.execute();
}

/** The role a user holds in an organization, or undefined (the readers of its log are its owner and admins). */
export async function roleInOrganization(db: Db, organizationId: string, userId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('organization_members')
    .select('role')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.role;
}

export async function isInstanceOwner(db: Db, userId: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('is_owner').where('id', '=', userId).executeTakeFirst();
  return row?.is_owner === 1;
}

/** Deletes up to `limit` entries created before `cutoff`, oldest first; how many went. */
export async function deleteEntriesBefore(db: Db, cutoff: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('audit_log')
    .where((eb) =>
      eb(
        eb.refTuple('created_at', 'id'),
        'in',
        eb
          .selectFrom('audit_log')
          .select(['created_at', 'id'])
          .where('created_at', '<', cutoff)
          .orderBy('created_at')
          .orderBy('id')
          .limit(limit)
          .$asTuple('created_at', 'id'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
