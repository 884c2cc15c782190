import type { Environment, KeyScope, OrgRole } from '../../db/schema.js';
import type { RequestOrigin } from '../audit/index.js';
import { PERMISSIONS, ROLE_PERMISSIONS, type Permission } from './permissions.js';
import type { Plan } from './plans.js';

/**
 * Who acts, for every service operation `(ctx, actor, input)`: the account an API key acts for
 * (the API), or a signed-in user (the dashboard). The services decide with these fields only;
 * how the actor proved who it is stays with the front door that built it.
 */
export interface Actor {
  userId: string;
  email: string;
  /** Set when acting for an organization: an organization key, or the dashboard's chosen organization. */
  organizationId: string | null;
  organizationName: string | null;
  environment: Environment;
  permissions: readonly Permission[];
  /** The plan that governs the action: the organization's when acting for one, else the user's. */
  plan: Plan;
  /** The API key the request came with; absent for a signed-in dashboard user. */
  key?: ActorKey;
  /** A signed-in user's role in the organization they act for (ROLE_PERMISSIONS gave the permissions). */
  role?: OrgRole;
  /** The request acted through (its id and address, for the audit log); set by the front door. */
  origin?: RequestOrigin;
}

export interface ActorKey {
  id: string;
  name: string;
  scope: KeyScope;
  /** Addresses and CIDR ranges the key may be used from; null when unrestricted. */
  ipAllowlist: readonly string[] | null;
}

/** An actor that came with an API key (every /v1 request). */
export type KeyActor = Actor & { key: ActorKey };

/** The operator at the server's command line: administers every account. */
export const OPERATOR = Object.freeze({ operator: true as const });
export type Operator = typeof OPERATOR;

/** Who may call the account administration: the operator, or a user for their own account. */
export type AccountActor = Actor | Operator;

export function isOperator(actor: AccountActor): actor is Operator {
  return 'operator' in actor;
}

/**
 * What a signed-in dashboard user acts for: their own data or an organization's (any they are a
 * member of, with their role there), live or test. The dashboard keeps the choice.
 */
export interface Workspace {
  environment: Environment;
  organization: { id: string; name: string; plan: Plan; role: OrgRole } | null;
}

/**
 * A signed-in dashboard user, in their workspace (themselves and live data when none is chosen):
 * every permission for their own data, their role's (ROLE_PERMISSIONS) for an organization's,
 * whose plan then governs. The services still decide per call which organizations and keys they
 * reach.
 */
export function actorOfUser(user: { userId: string; email: string; plan: Plan; workspace?: Workspace; origin?: RequestOrigin }): Actor {
  const organization = user.workspace?.organization ?? null;
  return {
    origin: user.origin,
    userId: user.userId,
    email: user.email,
    organizationId: organization?.id ?? null,
    organizationName: organization?.name ?? null,
    environment: user.workspace?.environment ?? 'live',
    permissions: organization ? ROLE_PERMISSIONS[organization.role] : PERMISSIONS,
    plan: organization?.plan ?? user.plan,
    ...(organization && { role: organization.role }),
  };
}
