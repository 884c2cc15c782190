import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  addPasskey,
  beginTotpEnrolment,
  confirmTotp,
  disableTotp,
  passkeyRegistrationOptions,
  regenerateRecoveryCodes,
  removePasskey,
  totpEnrolment,
  twoFactorStatus,
  type SignedInUser,
} from '../../features/accounts/index.js';
import { askFirst } from '../components/ask-first.js';
import { field, html, isConfirmed, pageContext, queryParam, seeOther, signedInUser, submitForm, type Screen } from '../screen.js';
import { securityHeaders } from '../security.js';
import { TOO_MANY } from '../auth/throttle.js';
import { renderRecoveryCodes, renderTotpEnrolment, renderTwoFactor, type TwoFactorPageState } from './two-factor.js';

/** The two-factor page; a user the owner requires two factors of is sent here before anything else (routes.ts). */
export const TWO_FACTOR_PATH = '/dashboard/account/two-factor';

const NOTICES: Record<string, string> = {
  'totp-off': 'Authenticator app turned off.',
  'passkey-added': 'Passkey added. You can use it to sign in.',
  'passkey-removed': 'Passkey removed.',
};

type PasskeyParams = { Params: { id: string } };

/** /dashboard/account/two-factor/*: the authenticator app, passkeys and recovery codes of the signed-in user. */
export const twoFactorScreen: Screen = (app, context) => {
  const { throttle } = context;
  const view = (request: FastifyRequest, user: SignedInUser) => ({ ...pageContext(context, request), path: '/dashboard/account', user });
  const page = async (request: FastifyRequest, reply: FastifyReply, state: TwoFactorPageState, status = 200) => {
    const user = signedInUser(request);
    return html(reply, status, renderTwoFactor(view(request, user), await twoFactorStatus(context, user), state));
  };

  app.get('/account/two-factor', { schema: { hide: true } }, (request, reply) =>
    page(request, reply, { notice: NOTICES[queryParam(request, 'done') ?? ''] }),
  );

  app.post('/account/two-factor/totp', { schema: { hide: true } }, async (request, reply) => {
    await beginTotpEnrolment(context, signedInUser(request));
    return seeOther(reply, `${TWO_FACTOR_PATH}/totp`);
  });

  app.get('/account/two-factor/totp', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const enrolment = await totpEnrolment(context, user);
    if (!enrolment) return seeOther(reply, TWO_FACTOR_PATH);
    return html(reply, 200, renderTotpEnrolment(view(request, user), enrolment));
  });

  app.post('/account/two-factor/totp/confirm', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const { saved: codes, errors } = await submitForm({
      fields: ['code'],
      save: () => confirmTotp(context, user, { code: field(request.body, 'code') }),
    });
    if (codes) return html(reply, 200, renderRecoveryCodes(view(request, { ...user, mustEnrol: false }), codes, 'totp'));
    const enrolment = await totpEnrolment(context, user);
    if (!enrolment) return seeOther(reply, TWO_FACTOR_PATH);
    return html(reply, 400, renderTotpEnrolment(view(request, user), enrolment, errors.code));
  });

  // A wrong code or password is a guess, throttled like a failed sign-in.
  app.post('/account/two-factor/totp/disable', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const retryAfter = await throttle.retryAfter(request.ip, user.email);
    if (retryAfter > 0) {
      reply.header('retry-after', String(retryAfter));
      return page(request, reply, { error: TOO_MANY(retryAfter) }, 429);
    }
    const { errors } = await submitForm({
      fields: ['code_or_password'],
      save: () => disableTotp(context, user, { code_or_password: field(request.body, 'code_or_password') }),
    });
    if (!errors) return seeOther(reply, `${TWO_FACTOR_PATH}?done=totp-off`);
    await throttle.recordFailure(request.ip, user.email);
    return page(request, reply, { fieldErrors: errors }, 400);
  });

  app.post('/account/two-factor/recovery-codes', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    if (!isConfirmed(request.body)) {
      return askFirst(context, request, reply, user, '/dashboard/account', {
        title: 'Make new recovery codes?',
        text: 'Ten new codes replace the old ones, which stop working, used or not.',
        action: `${TWO_FACTOR_PATH}/recovery-codes`,
        button: 'Make new codes',
        cancel: TWO_FACTOR_PATH,
      });
    }
    return html(reply, 200, renderRecoveryCodes(view(request, user), await regenerateRecoveryCodes(context, user), 'renewed'));
  });

  app.post('/account/two-factor/passkeys/options', { schema: { hide: true } }, async (request, reply) => {
    const options = await passkeyRegistrationOptions(context, signedInUser(request), request.dashboard.binding!);
    return securityHeaders(reply).type('application/json').send(options);
  });

  app.post('/account/two-factor/passkeys', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const name = field(request.body, 'name');
    const { saved, errors } = await submitForm({
      fields: ['name', 'passkey'],
      save: () => addPasskey(context, user, request.dashboard.binding!, { name, response: field(request.body, 'response') }),
    });
    if (saved?.recoveryCodes)
      return html(reply, 200, renderRecoveryCodes(view(request, { ...user, mustEnrol: false }), saved.recoveryCodes, 'passkey'));
    if (saved) return seeOther(reply, `${TWO_FACTOR_PATH}?done=passkey-added`);
    return page(request, reply, { fieldErrors: errors, passkeyName: name }, 400);
  });

  app.post<PasskeyParams>('/account/two-factor/passkeys/:id/remove', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    if (!isConfirmed(request.body)) {
      return askFirst(context, request, reply, user, '/dashboard/account', {
        title: 'Remove this passkey?',
        text: 'It will no longer sign you in.',
        action: `${TWO_FACTOR_PATH}/passkeys/${encodeURIComponent(request.params.id)}/remove`,
        button: 'Remove',
        cancel: TWO_FACTOR_PATH,
      });
    }
    await removePasskey(context, user, { id: request.params.id });
    return seeOther(reply, `${TWO_FACTOR_PATH}?done=passkey-removed`);
  });
};
