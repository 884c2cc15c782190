import type { FastifyRequest } from 'fastify';
import { changePassword, checkPasswordChange, setTimeZone, type SignedInUser } from '../../features/accounts/index.js';
import { isMailConfigured } from '../../features/mail/index.js';
import { isWeeklyReportEnabled, setWeeklyReport } from '../../features/weekly-report/index.js';
import { field, html, pageContext, queryParam, signedInUser, seeOther, submitForm, type Screen } from '../screen.js';
import { renderAccount } from './account.js';
import { TOO_MANY } from '../auth/throttle.js';
import { browserZone } from '../reader-zone.js';

/** /dashboard/account: the profile, the time zone, the weekly report and the password change. */
export const accountScreen: Screen = (app, context) => {
  const { throttle } = context;
  const weeklyReportOf = async (request: FastifyRequest, user: SignedInUser) => ({
    enabled: await isWeeklyReportEnabled(context, user),
    saved: queryParam(request, 'weekly-report') === 'saved',
    mailConfigured: isMailConfigured(context),
  });

  app.get('/account', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const changed = queryParam(request, 'password') === 'changed';
    const zone = { browser: browserZone(request), saved: queryParam(request, 'time-zone') === 'saved' };
    const weeklyReport = await weeklyReportOf(request, user);
    return html(reply, 200, renderAccount({ ...pageContext(context, request), user }, { changed, zone, weeklyReport }));
  });

  app.post('/account/time-zone', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const value = field(request.body, 'time_zone');
    const { errors } = await submitForm({ fields: ['time_zone'], save: () => setTimeZone(context, user, { time_zone: value }) });
    if (!errors) return seeOther(reply, '/dashboard/account?time-zone=saved');
    const view = { ...pageContext(context, request), path: '/dashboard/account', user };
    const weeklyReport = await weeklyReportOf(request, user);
    return html(reply, 400, renderAccount(view, { zone: { browser: browserZone(request), value, error: errors.time_zone }, weeklyReport }));
  });

  app.post('/account/weekly-report', { schema: { hide: true } }, async (request, reply) => {
    await setWeeklyReport(context, signedInUser(request), { enabled: field(request.body, 'weekly_report') === 'yes' });
    return seeOther(reply, '/dashboard/account?weekly-report=saved');
  });

  app.post('/account/password', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const view = { ...pageContext(context, request), path: '/dashboard/account', user };
    const retryAfter = await throttle.retryAfter(request.ip, user.email);
    if (retryAfter > 0) {
      reply.header('retry-after', String(retryAfter));
      return html(reply, 429, renderAccount(view, { error: TOO_MANY(retryAfter), weeklyReport: await weeklyReportOf(request, user) }));
    }
    const input = { current: field(request.body, 'current_password'), next: field(request.body, 'new_password') };
    const { errors } = await submitForm({
      fields: ['current_password', 'new_password'],
      own: input.next !== field(request.body, 'confirm') ? { confirm: 'The two passwords do not match.' } : {},
      check: () => checkPasswordChange(context, user, input),
      save: () => changePassword(context, user, input),
    });
    if (!errors) return seeOther(reply, '/dashboard/account?password=changed');
    // A wrong current password is a guess like a failed sign-in, and throttled like one.
    if (errors.current_password) await throttle.recordFailure(request.ip, user.email);
    return html(reply, 400, renderAccount(view, { fieldErrors: errors, weeklyReport: await weeklyReportOf(request, user) }));
  });
};
