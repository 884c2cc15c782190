import type { ServiceContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import type { AuditLogTable, Environment } from '../../db/schema.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { networkOf } from '../../lib/ip.js';
import type { AuditAction } from './actions.js';
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
