import type { ServiceContext } from '../../context.js';
import { transaction } from '../../db/transaction.js';
import { ApiError } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { wallTimeOf } from '../../lib/zoned-time.js';
import { actorOfUser, listOrganizations, type Plan, type SignedInUser } from '../accounts/index.js';
import { overview } from '../analytics/index.js';
import { recordAudit } from '../audit/index.js';
import { queueMail, type WeeklyWorkspace } from '../mail/index.js';
import * as repo from './weekly-report.repository.js';

/**
 * The weekly report: on Monday, in the user's saved time zone (UTC when none), a mail with the
 * views, visitors and top tags of the week before (Monday to Sunday) and the change from the
 * week before that, for every workspace whose analytics the user may read: their own, and each
 * organization they are a member of (the analytics overview with compare=previous, live data).
 * Opt-in per user. The week is recorded in the transaction that queues the mail, so a week's
 * report goes out once, whichever workers run.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
/** Tags named per workspace. */
const TOP_TAGS = 5;

export async function isWeeklyReportEnabled(ctx: ServiceContext, user: { userId: string }): Promise<boolean> {
  return repo.isEnabled(ctx.db, user.userId);
}

/** The signed-in user's choice; a change is written to the audit log with it. */
export async function setWeeklyReport(ctx: ServiceContext, user: SignedInUser, input: { enabled: boolean }): Promise<void> {
  await transaction(ctx.db, async (trx) => {
    if ((await repo.isEnabled(trx, user.userId)) === input.enabled) return;
    await repo.setEnabled(trx, user.userId, input.enabled, isoNow(ctx.clock));
    await recordAudit(ctx, trx, actorOfUser(user), {
      action: input.enabled ? 'user.weekly_report_enabled' : 'user.weekly_report_disabled',
      targetId: user.userId,
    });
  });
}

/** The ISO 8601 week of a Monday (`2026-W48`): the week's Thursday decides its year. */
export function isoWeekOf(monday: string): string {
  const thursday = new Date(Date.parse(`${monday}T00:00:00Z`) + 3 * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The week just ended for a reader in `zone` when it is Monday there now; undefined on another day. */
export function reportedWeek(now: Date, zone: string): { start: string; end: string; week: string } | undefined {
  const today = Date.parse(`${wallTimeOf(now, zone).slice(0, 10)}T00:00:00Z`);
  if (new Date(today).getUTCDay() !== 1) return undefined;
  const start = dayOf(today - 7 * DAY_MS);
  return { start, end: dayOf(today), week: isoWeekOf(start) };
}

type Subscriber = { id: string; email: string; plan: Plan };

/** The user's workspaces' figures for [start, end) in `zone`; a workspace whose analytics they may not read is left out. */
async function workspacesOf(ctx: ServiceContext, user: Subscriber, period: { start: string; end: string }, zone: string) {
  const person = { userId: user.id, email: user.email, plan: user.plan };
  const organizations = await listOrganizations(ctx, actorOfUser(person));
  const spaces = [
    { name: 'Personal', actor: actorOfUser(person) },
    ...organizations.map((org) => ({
      name: org.name,
      actor: actorOfUser({ ...person, workspace: { environment: 'live', organization: org } }),
    })),
  ];
  const figures: WeeklyWorkspace[] = [];
  for (const space of spaces) {
    try {
      const report = await overview(ctx, space.actor, {
        start_date: period.start,
        end_date: period.end,
        compare: 'previous',
        timezone: zone,
      });
      const previous = report.previous && report.previous.period.start < report.previous.period.end ? report.previous.totals : undefined;
      figures.push({
        name: space.name,
        views: report.totals.views,
        visitors: report.totals.unique_views,
        topTags: report.top_tags.slice(0, TOP_TAGS).map((tag) => ({ title: tag.title, views: tag.views })),
        ...(report.period.start > period.start && { countedFrom: report.period.start }),
        previous: previous ? { views: previous.views, visitors: previous.unique_views } : null,
      });
    } catch (error) {
      // A role or plan without analytics: that workspace is not in the report.
      if (!(error instanceof ApiError && error.status === 403)) throw error;
    }
  }
  return figures;
}

/** The worker's turn: queues the report of every subscriber for whom it is Monday and the week is not sent. Returns how many. */
export async function sendWeeklyReports(ctx: ServiceContext): Promise<number> {
  const now = ctx.clock.now();
  let queued = 0;
  for (const user of await repo.subscribers(ctx.db)) {
    const zone = user.time_zone ?? 'UTC';
    const week = reportedWeek(now, zone);
    if (!week || (user.weekly_report_week !== null && user.weekly_report_week >= week.week)) continue;
    const workspaces = await workspacesOf(ctx, user, week, zone);
    const sent = await transaction(ctx.db, async (trx) => {
      if (!(await repo.claimWeek(trx, user.id, week.week))) return false;
      await queueMail(trx, ctx, {
        to: user.email,
        template: 'weekly-report',
        data: {
          week: `${week.start} to ${dayOf(Date.parse(`${week.end}T00:00:00Z`) - DAY_MS)}`,
          dashboardLink: `${ctx.config.publicBaseUrl}/dashboard/analytics`,
          accountLink: `${ctx.config.publicBaseUrl}/dashboard/account`,
          workspaces,
        },
      });
      return true;
    });
    if (sent) queued++;
  }
  return queued;
}
