import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  actorOfUser,
  checkKeyFields,
  createKey,
  deleteKey,
  editKey,
  getKey,
  isEmailVerified,
  listAdministeredKeys,
  listOrganizations,
  regenerateKey,
  resendEmailVerification,
  setKeyEnabled,
  type SignedInUser,
} from '../../features/accounts/index.js';
import {
  fieldErrors,
  field,
  fields,
  html,
  isConfirmed,
  pageContext,
  pageParam,
  queryParam,
  signedInUser,
  seeOther,
  submitForm,
  type FormFields,
  type Screen,
} from '../screen.js';
import { isMailConfigured } from '../../features/mail/index.js';
import { askFirst } from '../components/ask-first.js';
import { renderKeyEdit, renderKeys, type KeyEditPage, type KeyFormValues, type KeysPage } from './keys.js';

/** Keys per page of the table: a page stays quick to render whatever the account holds. */
const KEYS_PER_PAGE = 50;

const NOTICES: Record<string, string> = {
  enabled: 'Key enabled. It works again from the next request.',
  disabled: 'Key disabled. Requests with it are refused from now on.',
  deleted: 'Key deleted.',
  saved: 'Key saved. The change applies from the next request.',
};

/** The fields of the key forms (new and edit) a service error can name; anything else is not the form's fault. */
const KEY_FIELDS = ['name', 'permissions', 'ip'];

/**
 * The new key form's fields, with its scope: an organization the user does not own or
 * administer is refused as not found or forbidden (only a forged form names one).
 */
const NEW_KEY_FIELDS: FormFields = (problem) =>
  problem.code === 'forbidden' || problem.code === 'not_found'
    ? { organization: 'Choose Personal or an organization you own or administer.' }
    : fieldErrors(problem, KEY_FIELDS);

/** The form's own problem: no permission chosen (the service's words are for the command line's `all`). */
function ownProblems(values: { permissions: readonly string[] }): Record<string, string> {
  return values.permissions.length === 0 ? { permissions: 'Choose at least one permission.' } : {};
}

/** Verification links a user may ask for in an hour; beyond, the page answers as usual and sends nothing. */
export const VERIFICATION_MAILS_PER_HOUR = 3;

/** The allow list as typed: addresses and ranges, one per line or separated by commas. */
const ipList = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/**
 * /dashboard/keys: the user's API keys (personal, and of the organizations they own or admin).
 * A new or regenerated key's value is rendered in the POST's own answer (no-store), never after
 * a redirect, and in no later page.
 */
export const keysScreen: Screen = (app, context) => {
  const keysPage = async (request: FastifyRequest, reply: FastifyReply, user: SignedInUser, page: Partial<KeysPage>, status = 200) => {
    const actor = actorOfUser(user);
    const pageNumber = pageParam(request);
    const [{ total, keys }, organizations, verified] = await Promise.all([
      listAdministeredKeys(context, actor, { limit: KEYS_PER_PAGE, offset: (pageNumber - 1) * KEYS_PER_PAGE }),
      listOrganizations(context, actor),
      isEmailVerified(context, user.userId),
    ]);
    const unverified = verified
      ? undefined
      : { mailConfigured: isMailConfigured(context), resent: queryParam(request, 'verification') === 'sent' };
    const view = { ...pageContext(context, request), path: '/dashboard/keys', user };
    return html(
      reply,
      status,
      renderKeys(view, { keys, organizations, paging: { page: pageNumber, perPage: KEYS_PER_PAGE, total }, unverified, ...page }),
    );
  };

  /** The key, for a confirmation page: 404 unless the user administers it. */
  const findKey = async (user: SignedInUser, id: string) => {
    return getKey(context, actorOfUser(user), { id });
  };

  app.get('/keys', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    return keysPage(request, reply, user, { notice: NOTICES[queryParam(request, 'done') ?? ''] });
  });

  // A few links an hour per user: each is a mail to an address nobody has proven is theirs.
  app.post('/keys/verification', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const rule = { key: `verify:user:${user.userId}`, limit: VERIFICATION_MAILS_PER_HOUR, windowMs: 3_600_000, bucketMs: 60_000 };
    if ((await context.limits.check([rule], context.clock.now().getTime(), true)).allowed) await resendEmailVerification(context, user);
    return seeOther(reply, '/dashboard/keys?verification=sent');
  });

  app.post('/keys', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    // The service refuses too; the page says why and offers a new link instead of the form.
    if (!(await isEmailVerified(context, user.userId))) return keysPage(request, reply, user, {}, 403);
    const values: KeyFormValues = {
      name: field(request.body, 'name'),
      permissions: fields(request.body, 'permissions'),
      ip: field(request.body, 'ip'),
      organization: field(request.body, 'organization'),
    };
    const input = { name: values.name, permissions: values.permissions, ip: ipList(values.ip) };
    const { saved: key, errors } = await submitForm({
      fields: NEW_KEY_FIELDS,
      own: ownProblems(values),
      check: () => checkKeyFields(input),
      save: () =>
        createKey(context, actorOfUser(user), {
          ...input,
          test: field(request.body, 'environment') === 'test',
          organizationId: values.organization || undefined,
        }),
    });
    if (errors) return keysPage(request, reply, user, { form: { values, errors } }, 400);
    return keysPage(request, reply, user, { shown: { name: key.name, value: key.key, regenerated: false } });
  });

  const editPage = (request: FastifyRequest, reply: FastifyReply, user: SignedInUser, page: KeyEditPage, status = 200) =>
    html(reply, status, renderKeyEdit({ ...pageContext(context, request), path: '/dashboard/keys', user }, page));

  app.get<{ Params: { id: string } }>('/keys/:id/edit', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const key = await findKey(user, request.params.id);
    const values = { name: key.name, permissions: key.permissions, ip: (key.ip_allowlist ?? []).join('\n') };
    return editPage(request, reply, user, { key, values, errors: {} });
  });

  app.post<{ Params: { id: string } }>('/keys/:id/edit', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const values = { name: field(request.body, 'name'), permissions: fields(request.body, 'permissions'), ip: field(request.body, 'ip') };
    const input = { ...values, ip: ipList(values.ip) };
    const key = await findKey(user, request.params.id);
    const { errors } = await submitForm({
      fields: KEY_FIELDS,
      own: ownProblems(values),
      check: () => checkKeyFields(input),
      save: () => editKey(context, actorOfUser(user), { id: key.id, ...input }),
    });
    if (errors) return editPage(request, reply, user, { key, values, errors }, 400);
    return seeOther(reply, '/dashboard/keys?done=saved');
  });

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post<{ Params: { id: string } }>(`/keys/:id/${verb}`, { schema: { hide: true } }, async (request, reply) => {
      const user = signedInUser(request);
      await setKeyEnabled(context, actorOfUser(user), { id: request.params.id, enabled });
      return seeOther(reply, `/dashboard/keys?done=${verb}d`);
    });
  }

  /**
   * Regenerate and Delete: without `confirmed=yes` (no scripts), a confirmation page for the key
   * the user administers (404 otherwise); confirmed, the action.
   */
  const destructive = (
    verb: 'regenerate' | 'delete',
    ask: { title: string; text: string; button: string },
    act: (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply, user: SignedInUser) => Promise<FastifyReply>,
  ) =>
    app.post<{ Params: { id: string } }>(`/keys/:id/${verb}`, { schema: { hide: true } }, async (request, reply) => {
      const user = signedInUser(request);
      const { id } = request.params;
      if (isConfirmed(request.body)) return act(request, reply, user);
      const key = await findKey(user, id);
      return askFirst(context, request, reply, user, '/dashboard/keys', {
        title: `${ask.title} “${key.name}”?`,
        text: ask.text,
        action: `/dashboard/keys/${encodeURIComponent(id)}/${verb}`,
        button: ask.button,
        cancel: '/dashboard/keys',
      });
    });

  destructive(
    'regenerate',
    {
      title: 'Regenerate',
      text: 'The key gets a new value, shown once. Its current value stops working at once, so update whatever uses it.',
      button: 'Regenerate',
    },
    async (request, reply, user) => {
      const key = await regenerateKey(context, actorOfUser(user), { id: request.params.id });
      return keysPage(request, reply, user, { shown: { name: key.name, value: key.key, regenerated: true } });
    },
  );

  destructive(
    'delete',
    { title: 'Delete', text: 'Requests with this key are refused from the next one on. This cannot be undone.', button: 'Delete' },
    async (request, reply, user) => {
      await deleteKey(context, actorOfUser(user), { id: request.params.id });
      return seeOther(reply, '/dashboard/keys?done=deleted');
    },
  );
};
