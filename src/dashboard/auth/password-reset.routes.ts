import type { FastifyRequest } from 'fastify';
import { linkState, requestPasswordReset, resetPassword, verifyEmail } from '../../features/accounts/index.js';
import { isMailConfigured } from '../../features/mail/index.js';
import type { WindowRule } from '../../lib/rate-limit/window.js';
import { renderMessage } from '../components/message.js';
import { csrfFor, field, html, queryParam, seeOther, submitForm, type Screen } from '../screen.js';
import { renderForgotPassword, renderLinkProblem, renderResetPassword, renderVerifyEmail } from './password-reset.js';
import { TOO_MANY } from './throttle.js';

const HOUR = 60 * 60 * 1000;
/** Reset links asked for per client address in an hour: beyond, the form answers 429. */
export const RESET_REQUESTS_PER_CLIENT_HOUR = 10;
/** Reset mails per email address in an hour: beyond, the form answers as usual and sends nothing. */
export const RESET_MAILS_PER_EMAIL_HOUR = 3;

const perClient = (ip: string): WindowRule => ({
  key: `reset:ip:${ip}`,
  limit: RESET_REQUESTS_PER_CLIENT_HOUR,
  windowMs: HOUR,
  bucketMs: 60_000,
});
const perEmail = (email: string): WindowRule => ({
  key: `reset:email:${email}`,
  limit: RESET_MAILS_PER_EMAIL_HOUR,
  windowMs: HOUR,
  bucketMs: 60_000,
});

/** The request a signed-out change comes through, for the audit log. */
const originOf = (request: FastifyRequest) => ({ requestId: request.id, ip: request.ip });

const NEW_LINK = { href: '/dashboard/forgot-password', label: 'Ask for a new link' };

/**
 * Forgot password (/forgot-password → a mailed link → /reset-password) and the address
 * verification link (/verify-email): screens of a signed-out browser. Following a link shows a
 * form; only its POST spends the link, so a mail scanner that fetches links spends nothing.
 */
export const passwordResetScreens: Screen = (app, context) => {
  const mailConfigured = isMailConfigured(context);

  app.get('/forgot-password', { schema: { hide: true } }, async (request, reply) =>
    html(reply, 200, renderForgotPassword({ csrf: csrfFor(context, request), mailConfigured })),
  );

  // The same answer whether the address has an account or not; the per-email limit is as silent.
  app.post('/forgot-password', { schema: { hide: true } }, async (request, reply) => {
    const email = field(request.body, 'email').trim().toLowerCase();
    const form = { csrf: csrfFor(context, request), email, mailConfigured };
    const nowMs = context.clock.now().getTime();
    const client = await context.limits.check([perClient(request.ip)], nowMs, true);
    if (!client.allowed) {
      const seconds = Math.max(1, Math.ceil(client.windows[0]!.retryAfterMs / 1000));
      reply.header('retry-after', String(seconds));
      return html(reply, 429, renderForgotPassword({ ...form, error: TOO_MANY(seconds) }));
    }
    if (!email) return html(reply, 400, renderForgotPassword({ ...form, error: 'Give the email address of your account.' }));
    if ((await context.limits.check([perEmail(email)], nowMs, true)).allowed) await requestPasswordReset(context, { email });
    return html(reply, 200, renderForgotPassword({ ...form, sent: true }));
  });

  app.get('/reset-password', { schema: { hide: true } }, async (request, reply) => {
    const csrf = csrfFor(context, request);
    if (queryParam(request, 'done') !== undefined) {
      const text = 'Every browser signed in to the account was signed out. Sign in with the new password.';
      return html(reply, 200, renderMessage(csrf, 'Password changed', text, { href: '/dashboard/login', label: 'Sign in' }));
    }
    const token = queryParam(request, 'token') ?? '';
    const state = await linkState(context, 'password_reset', token);
    if (state !== 'valid') return html(reply, 410, renderLinkProblem(csrf, state, NEW_LINK));
    return html(reply, 200, renderResetPassword({ csrf, token }));
  });

  app.post('/reset-password', { schema: { hide: true } }, async (request, reply) => {
    const csrf = csrfFor(context, request);
    const token = field(request.body, 'token');
    const password = field(request.body, 'password');
    const { saved, errors } = await submitForm({
      fields: ['password'],
      own: password !== field(request.body, 'confirm') ? { confirm: 'The two passwords do not match.' } : {},
      save: () => resetPassword(context, { token, password, origin: originOf(request) }),
    });
    if (errors) return html(reply, 400, renderResetPassword({ csrf, token, fieldErrors: errors }));
    if (saved.state !== 'valid') return html(reply, 410, renderLinkProblem(csrf, saved.state, NEW_LINK));
    return seeOther(reply, '/dashboard/reset-password?done');
  });

  const verified = (signedIn: boolean) =>
    signedIn ? { href: '/dashboard/keys', label: 'Go to API keys' } : { href: '/dashboard/login', label: 'Sign in' };
  // A new link is sent from the API Keys page, which needs the user signed in.
  const newVerificationLink = { href: '/dashboard/keys', label: 'Send a new link' };

  app.get('/verify-email', { schema: { hide: true } }, async (request, reply) => {
    const csrf = csrfFor(context, request);
    if (queryParam(request, 'done') !== undefined) {
      const text = 'Your email address is confirmed: you can create API keys.';
      return html(reply, 200, renderMessage(csrf, 'Address confirmed', text, verified(request.dashboard.user !== undefined)));
    }
    const token = queryParam(request, 'token') ?? '';
    const state = await linkState(context, 'email_verification', token);
    if (state !== 'valid') return html(reply, 410, renderLinkProblem(csrf, state, newVerificationLink));
    return html(reply, 200, renderVerifyEmail({ csrf, token }));
  });

  app.post('/verify-email', { schema: { hide: true } }, async (request, reply) => {
    const state = await verifyEmail(context, { token: field(request.body, 'token'), origin: originOf(request) });
    if (state !== 'valid') return html(reply, 410, renderLinkProblem(csrfFor(context, request), state, newVerificationLink));
    return seeOther(reply, '/dashboard/verify-email?done');
  });
};
