/**
 * Row types of every table. Both backends store the same shapes: timestamps as ISO 8601 text
 * (they sort correctly as text), booleans as 0/1 integers and JSON as text, so one set of
 * queries serves SQLite and PostgreSQL alike.
 */
import type { ColumnType, Generated } from 'kysely';

/** An account's plan; its limits are features/accounts/plans.ts. */
export type Plan = 'free' | 'pro' | 'enterprise';
export type Environment = 'live' | 'test';
export type KeyScope = 'personal' | 'organization';
export type OrgRole = 'owner' | 'admin' | 'editor' | 'viewer';

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  plan: Plan;
  created_at: string;
  updated_at: string;
  /** 1 for the instance owner (the first-run account); at most one user has it. */
  is_owner: Generated<number>;
  /** 1 when the user may not sign in; their sessions stop working at once. */
  disabled: Generated<number>;
  last_sign_in_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** The IANA zone the dashboard shows this user's reports and times in; null: the browser's. */
  time_zone: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the user proved they read mail at `email` (a verification link, an invite); null: not yet. */
  email_verified_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1 when the user asked for the weekly report by mail. */
  weekly_report: Generated<number>;
  /** The last ISO week whose report was sent to the user (`2026-W48`): each week's is sent once. */
  weekly_report_week: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A mail waiting for the worker, or sent (migration 0024, features/mail). */
export interface MailOutboxTable {
  id: string;
  recipient: string;
  /** The template's name (`password-reset`), for the log and the purge. */
  template: string;
  subject: string;
  /** `{ text, html }` as JSON, sealed under SECRET_KEY; emptied once sent. */
  body: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: string;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: string;
  sent_at: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A single-use link mailed to a user; only the token's SHA-256 is stored (migration 0024). */
export interface AccountTokensTable {
  id: string;
  user_id: string;
  purpose: 'password_reset' | 'email_verification';
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A signed-in browser (dashboard). The token itself is never stored, only its SHA-256. */
export interface SessionsTable {
  id: string;
  /** SHA-256 of the session token, hex. */
  token_hash: string;
  user_id: string;
  created_at: string;
  /** Moved forward at most once a minute; the idle expiry counts from it. */
  last_seen_at: string;
  /** The absolute end of the session, whatever its activity. */
  expires_at: string;
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

/** An address invited to an organization (migration 0028); only the mailed token's SHA-256 is stored. */
export interface OrganizationInvitesTable {
  id: string;
  organization_id: string;
  /** Lower-cased, as accounts store addresses. */
  email: string;
  role: Exclude<OrgRole, 'owner'>;
  token_hash: string;
  /** The user who sent it. */
  invited_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: ColumnType<string | null, string | null | undefined, string | null>;
  revoked_at: ColumnType<string | null, string | null | undefined, string | null>;
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
  /** The tag that holds the address, or held it (a retired address redirects to its current one). */
  tag_id: string | null;
  /** lower(short_id), unique: addresses are unique ignoring case (null on a generated one from before that differs only by case). */
  folded: string | null;
}

export type TagStatus = 'published' | 'draft';
export type ThemePreset = 'default' | 'minimal' | 'bold' | 'dark';

/** Views counted against a tag's max_views. */
export interface TagViewCountsTable {
  tag_id: string;
  views: number;
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
  /** A draft is shown to nobody publicly; a published tag from publish_at (when set). */
  status: TagStatus;
  publish_at: string | null;
  /** From then on (or once max_views views were counted), the page is expired. */
  expires_at: string | null;
  max_views: number | null;
  /** Where an expired page sends its visitors (else a 410 page). */
  expired_url: string | null;
  /** scrypt hash (lib/passwords.ts) of the password that unlocks the page, or null: no password. */
  password_hash: string | null;
  theme_preset: ThemePreset;
  /** #rrggbb, or null: the preset's own accent. */
  theme_accent: string | null;
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

export interface WebhooksTable extends Owned {
  id: string;
  name: string;
  url: string;
  /** JSON array of event kinds. */
  events: string;
  secret: string;
  /** JSON object of custom headers. */
  headers: string;
  enabled: number;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'pending' | 'success' | 'failed';

export interface DeliveriesTable {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  /** JSON of the event body sent. */
  payload: string;
  test: number;
  status: DeliveryStatus;
  /** Attempts made so far. */
  attempt: number;
  /** When the next automatic attempt is due; null once final. */
  next_attempt_at: string | null;
  /** A worker's lease on the delivery while it sends it. */
  claimed_until: string | null;
  response_code: number | null;
  response_time_ms: number | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DeliveryAttemptsTable {
  id: string;
  delivery_id: string;
  attempt: number;
  attempted_at: string;
  response_code: number | null;
  response_time_ms: number;
  /** The first 1 KB of the receiver's answer. */
  response_body: string | null;
  error: string | null;
}

/** Sizes are bigint columns: PostgreSQL returns them as strings, SQLite as numbers. */
type ByteCount = ColumnType<number | string, number, number>;

export interface FilesTable extends Owned {
  id: string;
  tag_id: string;
  name: string;
  original_name: string;
  description: string | null;
  /** The detected type, never the client's claim. */
  mime_type: string;
  size: ByteCount;
  /** SHA-256 of the content, hex; the download ETag. */
  sha256: string;
  download_count: number;
  created_at: string;
  updated_at: string;
}

export interface StorageUsageTable {
  /** The organization's id for organization files, else the owner's user id. */
  account_id: string;
  environment: Environment;
  used_bytes: ByteCount;
  updated_at: string;
}

export type ViewSource = 'qr_scan' | 'direct' | 'referral';
export type DeviceType = 'mobile' | 'desktop' | 'tablet';

export interface ViewsTable extends Owned {
  id: string;
  tag_id: string;
  occurred_at: string;
  source: ViewSource;
  /** First-party cookie id, or an HMAC of address and user agent. */
  visitor: string;
  device: DeviceType;
  browser: string;
  os: string;
  country: string | null;
  region: string | null;
  city: string | null;
  /** Never the whole address: 203.0.113.xxx. */
  ip_masked: string | null;
  /** Kept only while the tag's access logging is on. */
  user_agent: string | null;
  referrer: string | null;
  /** 1 when access logging was on: the view is also an access-log record. */
  logged: number;
  duration_seconds: number | null;
  /** The page address's utm_* parameters at the view (migration 0019). */
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
}

export interface TagHourlyTable {
  tag_id: string;
  /** YYYY-MM-DDTHH:00:00Z */
  hour: string;
  views: number;
  qr_scans: number;
  direct_visits: number;
  duration_sum: number;
  duration_count: number;
  /** Distinct visitors of the tag in the hour. */
  unique_visitors: number;
  /** Requests from known bots, counted apart from the views (migration 0021). */
  bot_views: Generated<number>;
}

/** What views are broken down by (features/analytics/dimensions.ts). */
export type Dimension = 'device' | 'country' | 'browser' | 'os' | 'referrer' | 'city' | 'utm_source' | 'utm_medium' | 'utm_campaign';

export interface TagDailyDimensionsTable {
  tag_id: string;
  day: string;
  dimension: Dimension;
  value: string;
  views: number;
}

export interface TagMonthlyDimensionsTable {
  tag_id: string;
  /** YYYY-MM-01 */
  month: string;
  dimension: Dimension;
  value: string;
  views: number;
}

export interface TagVisitorHoursTable {
  tag_id: string;
  hour: string;
  visitor: string;
}

export interface TagVisitorDaysTable {
  tag_id: string;
  day: string;
  visitor: string;
  /** visitors.id when the row was written, if the visitor had one then (migration 0013). */
  visitor_number: number | null;
}

export interface TagDailyTable extends Owned {
  tag_id: string;
  day: string;
  views: number;
  qr_scans: number;
  direct_visits: number;
  /** Distinct visitors of the tag that day. */
  unique_views: number;
  duration_sum: number;
  duration_count: number;
  /** Requests from known bots (migration 0021). */
  bot_views: Generated<number>;
}

export interface VisitorsTable {
  id: Generated<number>;
  key: string;
  /** YYYY-MM-DD */
  last_day: string;
}

/** A closed day's distinct visitors of a tag: their visitors.id as a visitor set (features/analytics/visitor-sets.ts). */
export interface TagDayVisitorsTable {
  tag_id: string;
  day: string;
  visitors: string;
}

/** A closed day's distinct visitors of a scope: the union of its tags' sets (migration 0009). */
export interface ScopeDayVisitorsTable {
  environment: Environment;
  scope_id: string;
  day: string;
  visitors: string;
  /** 1 while the set may hold visitors of a deleted tag, or was never built: rebuilt by the seal job. */
  stale: Generated<number>;
  /** Set anew with every write of `visitors` (newSetRevision): what a process's kept copy is checked against. */
  revision: string;
}

export interface ScopeMonthVisitorsTable {
  environment: Environment;
  scope_id: string;
  /** The UTC month's first day. */
  month: string;
  /** A month set (visitor-sets.ts, toMonthSet); '' while never built. */
  visitors: string;
  /** 1 while the set is to be (re)built from its days' sets: reports ignore it meanwhile. */
  stale: Generated<number>;
  /** As scope_day_visitors.revision. */
  revision: string;
}

/** A closed UTC month's distinct visitors of a tag: the union of its days' sets (migration 0033). */
export interface TagMonthVisitorsTable {
  tag_id: string;
  /** The UTC month's first day. */
  month: string;
  /** A month set (visitor-sets.ts, toMonthSet); '' while never built. */
  visitors: string;
  /** 1 while the set is to be (re)built from its days' sets: reports ignore it meanwhile. */
  stale: Generated<number>;
  /** As scope_day_visitors.revision. */
  revision: string;
}

/** scope_id: the organization id for organization rows, else the owner's user id. */
export interface ScopeDailyTable {
  environment: Environment;
  scope_id: string;
  day: string;
  views: number;
  qr_scans: number;
  /** Requests from known bots (migration 0021). */
  bot_views: Generated<number>;
}

/** A scope's views, scans and bot requests per UTC hour (migration 0022): the overview in a time zone. */
export interface ScopeHourlyTable {
  environment: Environment;
  scope_id: string;
  /** YYYY-MM-DDTHH:00:00Z */
  hour: string;
  views: number;
  qr_scans: number;
  bot_views: Generated<number>;
}

/** A scope's views by the overview's dimensions (referrer, utm_source) per day (migration 0019). */
export interface ScopeDailyDimensionsTable {
  environment: Environment;
  scope_id: string;
  day: string;
  dimension: Dimension;
  value: string;
  views: number;
}

/** The same per month (YYYY-MM-01): a year's overview reads about 13 rows a value. */
export interface ScopeMonthlyDimensionsTable {
  environment: Environment;
  scope_id: string;
  month: string;
  dimension: Dimension;
  value: string;
  views: number;
}

export interface TagMonthlyTable {
  environment: Environment;
  scope_id: string;
  /** YYYY-MM-01 */
  month: string;
  tag_id: string;
  views: number;
}

/** An instance setting the owner changed (migration 0012); a setting without a row has its default. */
export interface SettingsTable {
  name: string;
  value: string;
  updated_at: string;
}

/**
 * Views answered but not yet ingested, in arrival order: one row per group of views committed
 * together (see migrations 0015 and 0016).
 */
export interface ViewInboxTable {
  seq: Generated<number>;
  /**
   * The group's records (features/analytics/view-record.ts), one JSON array of them, as binary
   * JSON: on SQLite a blob of JSONB, on PostgreSQL jsonb, read back as an array.
   */
  records: Uint8Array | unknown[];
  /** How many records the group holds. */
  views: number;
}

/** A counted click of a web link block of a public page (see migration 0018). */
export interface LinkClicksTable {
  id: Generated<number>;
  tag_id: string;
  /** The link block clicked (blk_…). */
  block_id: string;
  occurred_at: string;
  /** The visitor id views use: the tsv cookie, else a keyed hash of address and user agent. */
  visitor: string;
  /** The tag's organization, else its owner: whose plan's history the click is kept for. */
  scope_id: string;
}

/**
 * A tag's report shared at a public address, /stats/{token} (see migration 0020). The token is
 * never stored: it is a MAC of the id under a key derived from the instance's secret, so the
 * list can show the address again, and only its SHA-256 is kept, to find the share by.
 */
export interface AnalyticsSharesTable {
  id: string;
  tag_id: string;
  /** The user who shared it. */
  created_by: string;
  created_at: string;
  /** From then on the address answers 404; null: until revoked. */
  expires_at: string | null;
  /** scrypt hash (lib/passwords.ts) of the password the page asks for, or null: none. */
  password_hash: string | null;
  /** SHA-256 of the token, hex. */
  token_hash: string;
}

/**
 * The Idempotency-Key of a POST, per API key (see migration 0014). `status` is null while the
 * request is in flight; then the response to replay: its status, headers (JSON object) and body.
 */
export interface IdempotencyKeysTable {
  api_key_id: string;
  idempotency_key: string;
  /** SHA-256 (hex) of the method, path and body. */
  fingerprint: string;
  created_at: string;
  /** When the request in flight claimed the key; a claim older than the lease is abandoned. */
  locked_at: string;
  /** The request id of the request that ran. */
  request_id: string;
  status: number | null;
  response_headers: string | null;
  response_body: string | null;
}

/**
 * One state change (migration 0025, features/audit). The workspace is `organization_id`, else
 * `owner_id` (a user's own space), else the instance. `ip` is masked (IPv4 /24, IPv6 /48).
 */
export interface AuditLogTable {
  id: string;
  created_at: string;
  organization_id: string | null;
  owner_id: string | null;
  /** live or test for changes to a workspace's data; null where it does not apply (members, sign-in). */
  environment: Environment | null;
  actor_type: 'user' | 'key' | 'operator' | 'anonymous';
  /** The user's or the key's id; null for the operator and the anonymous. */
  actor_id: string | null;
  /** The user's email or the key's name, as they were then. */
  actor_name: string | null;
  /** `resource.past_tense`: tag.updated, key.disabled, user.signed_in … */
  action: string;
  target_id: string | null;
  ip: string | null;
  request_id: string | null;
  /** JSON object of the change's particulars (a role, a plan), or null. */
  details: string | null;
}

/** A user's authenticator app (migration 0026): the sealed secret, confirmed by a first code. */
export interface TotpCredentialsTable {
  user_id: string;
  /** The base32 secret, sealed under SECRET_KEY (lib/sealed-secrets.ts). */
  secret: string;
  created_at: string;
  /** null while enrolment waits for the first code. */
  confirmed_at: string | null;
  /** The 30-second step of the last code accepted: a code is taken once. */
  last_step: number | null;
}

/** A single-use recovery code (migration 0026): SHA-256 of the code, hex. */
export interface RecoveryCodesTable {
  code_hash: string;
  user_id: string;
  created_at: string;
  used_at: string | null;
}

/** A WebAuthn credential (migration 0026). */
export interface PasskeysTable {
  /** The credential id, base64url. */
  credential_id: string;
  user_id: string;
  name: string;
  /** The COSE public key, base64url. */
  public_key: string;
  counter: number;
  /** JSON array of the authenticator's transports. */
  transports: string;
  created_at: string;
  last_used_at: string | null;
}

/** A browser that gave the password and owes the second factor (migration 0026). */
export interface PendingSignInsTable {
  /** SHA-256 of the pending token, hex. */
  token_hash: string;
  user_id: string;
  expires_at: string;
  failures: Generated<number>;
}

/** A browser's outstanding WebAuthn challenge for one purpose (migration 0026). */
export interface WebauthnChallengesTable {
  /** SHA-256 of the value the browser's form token is bound to, hex. */
  binding_hash: string;
  purpose: 'register' | 'second-factor' | 'passwordless';
  challenge: string;
  user_id: string | null;
  expires_at: string;
}

export interface Database {
  users: UsersTable;
  organizations: OrganizationsTable;
  organization_members: OrganizationMembersTable;
  organization_invites: OrganizationInvitesTable;
  api_keys: ApiKeysTable;
  folders: FoldersTable;
  short_ids: ShortIdsTable;
  tag_view_counts: TagViewCountsTable;
  tags: TagsTable;
  events: EventsTable;
  files: FilesTable;
  storage_usage: StorageUsageTable;
  webhooks: WebhooksTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  views: ViewsTable;
  tag_hourly: TagHourlyTable;
  tag_daily_dimensions: TagDailyDimensionsTable;
  tag_visitor_hours: TagVisitorHoursTable;
  tag_visitor_days: TagVisitorDaysTable;
  tag_daily: TagDailyTable;
  visitors: VisitorsTable;
  tag_day_visitors: TagDayVisitorsTable;
  tag_month_visitors: TagMonthVisitorsTable;
  scope_daily: ScopeDailyTable;
  scope_daily_dimensions: ScopeDailyDimensionsTable;
  scope_hourly: ScopeHourlyTable;
  scope_monthly_dimensions: ScopeMonthlyDimensionsTable;
  scope_day_visitors: ScopeDayVisitorsTable;
  scope_month_visitors: ScopeMonthVisitorsTable;
  tag_monthly: TagMonthlyTable;
  tag_monthly_dimensions: TagMonthlyDimensionsTable;
  view_inbox: ViewInboxTable;
  link_clicks: LinkClicksTable;
  sessions: SessionsTable;
  settings: SettingsTable;
  idempotency_keys: IdempotencyKeysTable;
  analytics_shares: AnalyticsSharesTable;
  mail_outbox: MailOutboxTable;
  account_tokens: AccountTokensTable;
  audit_log: AuditLogTable;
  totp_credentials: TotpCredentialsTable;
  recovery_codes: RecoveryCodesTable;
  passkeys: PasskeysTable;
  pending_sign_ins: PendingSignInsTable;
  webauthn_challenges: WebauthnChallengesTable;
}
