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
