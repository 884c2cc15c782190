/**
 * Row types of every table. Both backends store the same shapes: timestamps as ISO 8601 text
 * (they sort correctly as text), booleans as 0/1 integers and JSON as text, so one set of
 * queries serves SQLite and PostgreSQL alike.
 */
import type { Plan } from '../features/accounts/plans.js';

export type Environment = 'live' | 'test';
export type KeyScope = 'personal' | 'organization';
export type OrgRole = 'owner' | 'admin' | 'member';

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  plan: Plan;
  created_at: string;
  updated_at: string;
}

export interface OrganizationsTable {
  id: string;
  name: string;
  plan: Plan;
  created_at: string;
  updated_at: string;
}

export interface OrganizationMembersTable {
  organization_id: string;
  user_id: string;
  role: OrgRole;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  organization_id: string | null;
  name: string;
  environment: Environment;
  scope: KeyScope;
  /** JSON array of permission names. */
  permissions: string;
  /** JSON array of IPs/CIDR ranges, or null for no restriction. */
  ip_allowlist: string | null;
  enabled: number;
  /** SHA-256 of the key value, hex. The value itself is never stored. */
  key_hash: string;
  /** First 12 characters of the value, for display. */
  prefix: string;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
}

/** Columns every tenant-owned row carries: its environment and who owns it. */
interface Owned {
  environment: Environment;
  owner_id: string;
  organization_id: string | null;
}

export interface FoldersTable extends Owned {
  id: string;
  parent_id: string | null;
  name: string;
  created_at: string;
  updated_at: string;
}

export interface ShortIdsTable {
  short_id: string;
  created_at: string;
}

export type ReadPermission = 'public' | 'organization' | 'private';
export type WritePermission = 'owner' | 'organization';

export interface TagsTable extends Owned {
  id: string;
  short_id: string;
  folder_id: string | null;
  title: string;
  /** JSON array of content blocks, each with its id. */
  content: string;
  read_permission: ReadPermission;
  write_permission: WritePermission;
  access_logging: number;
  /** Bumped on every change; keys caches of the rendered page. */
  version: number;
  created_at: string;
  updated_at: string;
}

export interface EventsTable extends Owned {
  id: string;
  type: string;
  tag_id: string | null;
  /** JSON of the body receivers get: { id, event, created_at, data }. */
  payload: string;
  created_at: string;
  /** When the worker turned the event into deliveries; null while pending. */
  dispatched_at: string | null;
}

export interface Database {
  users: UsersTable;
  organizations: OrganizationsTable;
  organization_members: OrganizationMembersTable;
  api_keys: ApiKeysTable;
  folders: FoldersTable;
  short_ids: ShortIdsTable;
  tags: TagsTable;
  events: EventsTable;
}
