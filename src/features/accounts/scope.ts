import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import { forbidden, notFound } from '../../errors.js';
import type { Actor } from './actor.js';

/**
 * What a key reaches: rows of its environment that belong to its user (personal key, the
 * user's own space) or to its organization (organization key).
 */
export interface Scope {
  environment: Environment;
  userId: string;
  organizationId: string | null;
}

export function scopeOf(actor: Actor): Scope {
  return { environment: actor.environment, userId: actor.userId, organizationId: actor.organizationId };
}

interface OwnedRow {
  environment: Environment;
  owner_id: string;
  organization_id: string | null;
}

/** Where-clause for queries over any owned table: the rows `scope` reaches. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- shared by every owned table
export function inScope(scope: Scope, table?: string): (eb: ExpressionBuilder<any, any>) => any {
  const column = (name: string) => (table ? `${table}.${name}` : name);
  return (eb) =>
    scope.organizationId
      ? eb.and([eb(column('environment'), '=', scope.environment), eb(column('organization_id'), '=', scope.organizationId)])
      : eb.and([
          eb(column('environment'), '=', scope.environment),
          eb(column('owner_id'), '=', scope.userId),
          eb(column('organization_id'), 'is', null),
        ]);
}

export function isInScope(row: OwnedRow, scope: Scope): boolean {
  if (row.environment !== scope.environment) return false;
  return scope.organizationId
    ? row.organization_id === scope.organizationId
    : row.owner_id === scope.userId && row.organization_id === null;
}

/**
 * 404 when the row does not exist in the caller's environment, 403 when it exists but belongs
 * to someone else (DECISIONS.md, "Status codes").
 */
export function requireAccess<T extends OwnedRow>(row: T | undefined, scope: Scope, what: string): T {
  if (!row || row.environment !== scope.environment) throw notFound(what);
  if (!isInScope(row, scope)) throw forbidden(`This API key cannot access this ${what.toLowerCase()}`);
  return row;
}

/** Rows of an owned table created in a period within the scope (analytics overview counts). */
export async function countCreatedInScope(
  db: Db,
  table: 'tags' | 'files',
  scope: Scope,
  range: { from: string; to: string },
): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where(inScope(scope))
    .where('created_at', '>=', range.from)
    .where('created_at', '<', range.to)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
