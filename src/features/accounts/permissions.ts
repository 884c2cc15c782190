import { forbidden } from '../../errors.js';
import type { OrgRole } from '../../db/schema.js';

/** The permissions an API key can carry (spec "Authentication", item 3). */
export const PERMISSIONS = [
  'tags:read',
  'tags:write',
  'tags:delete',
  'files:read',
  'files:write',
  'webhooks:read',
  'webhooks:write',
  'analytics:read',
  // The audit log (GET /v1/audit-log): who changed what; analytics:read does not give it.
  'audit:read',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** The roles of an organization's members, from the most rights to the fewest. */
export const ORG_ROLES = ['owner', 'admin', 'editor', 'viewer'] as const satisfies readonly OrgRole[];

/** The roles an owner or admin gives: the owner's is handed over, never given. */
export const GIVEN_ROLES = ['admin', 'editor', 'viewer'] as const satisfies readonly OrgRole[];

export function isGivenRole(value: string): value is (typeof GIVEN_ROLES)[number] {
  return (GIVEN_ROLES as readonly string[]).includes(value);
}

/**
 * What a member does in the organization's workspace in the dashboard: owners and admins
 * everything; an editor changes tags, folders and files and reads analytics, but reaches no
 * webhooks; a viewer reads tags, files and analytics and changes nothing. Keys and members are
 * the owner's and admins' alone (administers).
 */
export const ROLE_PERMISSIONS: Record<OrgRole, readonly Permission[]> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS,
  editor: ['tags:read', 'tags:write', 'tags:delete', 'files:read', 'files:write', 'analytics:read'],
  viewer: ['tags:read', 'files:read', 'analytics:read'],
};

/** Whether the role manages the organization: its members, invites and API keys. */
export function administers(role: OrgRole): boolean {
  return role === 'owner' || role === 'admin';
}

/**
 * 403 unless the actor holds `permission`: every service operation asks for the one its API
 * route requires, so a dashboard member's role binds as a key's permissions do.
 */
export function requirePermission(actor: { permissions: readonly Permission[] }, permission: Permission): void {
  if (!actor.permissions.includes(permission)) throw forbidden(`This needs the ${permission} permission, which you do not have here`);
}

/**
 * 403 for a viewer: for a change whose API permission is a read one (sharing a report takes
 * analytics:read), since a viewer changes nothing.
 */
export function requireChangeRights(actor: { role?: OrgRole }): void {
  if (actor.role === 'viewer') throw forbidden('A viewer changes nothing in the organization; ask its owner or an admin');
}
