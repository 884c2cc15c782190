import type { Migration } from 'kysely';
import * as accounts from './0001_accounts.js';
import * as tags from './0002_tags.js';
import * as files from './0003_files.js';
import * as webhooks from './0004_webhooks.js';
import * as analytics from './0005_analytics.js';
import * as analyticsScale from './0006_analytics_scale.js';
import * as pendingViews from './0007_pending_views.js';
import * as cacheNotifications from './0008_cache_notifications.js';
import * as scopeVisitorSets from './0009_scope_visitor_sets.js';
import * as sessions from './0010_sessions.js';
import * as loggedViewsIndex from './0011_logged_views_index.js';
import * as settings from './0012_settings.js';
import * as openVisitorNumbers from './0013_open_visitor_numbers.js';
import * as idempotencyKeys from './0014_idempotency_keys.js';
import * as viewInbox from './0015_view_inbox.js';
import * as viewInboxGroups from './0016_view_inbox_groups.js';
import * as publishing from './0017_publishing.js';
import * as linkClicks from './0018_link_clicks.js';
import * as breakdowns from './0019_breakdowns.js';
import * as analyticsShares from './0020_analytics_shares.js';
import * as botViews from './0021_bot_views.js';
import * as scopeHourly from './0022_scope_hourly.js';
import * as userTimeZone from './0023_user_time_zone.js';
import * as mail from './0024_mail.js';
import * as auditLog from './0025_audit_log.js';
import * as twoFactor from './0026_two_factor.js';
import * as memberRoles from './0027_member_roles.js';
import * as invites from './0028_invites.js';
import * as scopeMonthVisitors from './0029_scope_month_visitors.js';
import * as auditLogClustered from './0030_audit_log_clustered.js';
import * as visitorSetRevisions from './0031_visitor_set_revisions.js';
import * as coveringRollupKeys from './0032_covering_rollup_keys.js';
import * as tagMonthVisitors from './0033_tag_month_visitors.js';
import * as setRevisionKeys from './0034_set_revision_keys.js';

/** Every migration, in order. Names sort in the order they must run; never rename one. */
export const migrations: Record<string, Migration> = {
  '0001_accounts': accounts,
  '0002_tags': tags,
  '0003_files': files,
  '0004_webhooks': webhooks,
  '0005_analytics': analytics,
  '0006_analytics_scale': analyticsScale,
  '0007_pending_views': pendingViews,
  '0008_cache_notifications': cacheNotifications,
  '0009_scope_visitor_sets': scopeVisitorSets,
  '0010_sessions': sessions,
  '0011_logged_views_index': loggedViewsIndex,
  '0012_settings': settings,
  '0013_open_visitor_numbers': openVisitorNumbers,
  '0014_idempotency_keys': idempotencyKeys,
  '0015_view_inbox': viewInbox,
  '0016_view_inbox_groups': viewInboxGroups,
  '0017_publishing': publishing,
  '0018_link_clicks': linkClicks,
  '0019_breakdowns': breakdowns,
  '0020_analytics_shares': analyticsShares,
  '0021_bot_views': botViews,
  '0022_scope_hourly': scopeHourly,
  '0023_user_time_zone': userTimeZone,
  '0024_mail': mail,
  '0025_audit_log': auditLog,
  '0026_two_factor': twoFactor,
  '0027_member_roles': memberRoles,
  '0028_invites': invites,
  '0029_scope_month_visitors': scopeMonthVisitors,
  '0030_audit_log_clustered': auditLogClustered,
  '0031_visitor_set_revisions': visitorSetRevisions,
  '0032_covering_rollup_keys': coveringRollupKeys,
  '0033_tag_month_visitors': tagMonthVisitors,
  '0034_set_revision_keys': setRevisionKeys,
};
