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

function filtered(db: Db, workspace: AuditWorkspace, filters: EntryFilters) {
  let query = db.selectFrom('audit_log');
  if (workspace !== 'instance') {
    query =
      'organizationId' in workspace
        ? query.where('organization_id', '=', workspace.organizationId)
        : query.where('owner_id', '=', workspace.userId).where('organization_id', 'is', null);
  }
  const { actor, action, from, to, environment } = filters;
  if (environment === 'test') query = query.where('environment', '=', 'test');
  if (environment === 'live') query = query.where((eb) => eb.or([eb('environment', '=', 'live'), eb('environment', 'is', null)]));
  if (actor) query = query.where((eb) => eb.or([eb('actor_id', '=', actor), eb('actor_name', '=', actor)]));
  if (action) query = query.where('action', '=', action);
  if (from) query = query.where('created_at', '>=', from);
  if (to) query = query.where('created_at', '<', to);
  return query;
}

export async function countEntries(db: Db, workspace: AuditWorkspace, filters: EntryFilters): Promise<number> {
  const row = await filtered(db, workspace, filters)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** A page of entries, newest first; `before` continues after the entry of that (created_at, id). */
export function listEntries(
  db: Db,
  workspace: AuditWorkspace,
  filters: EntryFilters,
  page: { limit: number; offset?: number; before?: { created_at: string; id: string } },
): Promise<AuditLogTable[]> {
  let query = filtered(db, workspace, filters).selectAll();
  const { before } = page;
  if (before) {
    query = query.where((eb) =>
      eb.or([eb('created_at', '<', before.created_at), eb.and([eb('created_at', '=', before.created_at), eb('id', '<', before.id)])]),
    );
  }
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset ?? 0)
    .execute();
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
