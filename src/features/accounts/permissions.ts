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
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}
