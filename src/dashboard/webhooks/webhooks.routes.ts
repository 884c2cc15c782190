import type { FastifyReply, FastifyRequest } from 'fastify';
import { actorOfUser, PLAN_LIMITS, type SignedInUser } from '../../features/accounts/index.js';
import { EVENT_TYPES, type EventType } from '../../features/events/index.js';
import {
  checkWebhookFields,
  createWebhook,
  deleteWebhook,
  getDelivery,
  getWebhook,
  latestDeliveries,
  listDeliveries,
  listWebhooks,
  retryDelivery,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from '../../features/webhooks/index.js';
import { ApiError } from '../../errors.js';
import {
  fieldErrors,
  field,
  fields,
  html,
  isConfirmed,
  pageContext,
  queryParam,
  readOwn,
  signedInUser,
  seeOther,
  sentence,
  submitForm,
  type Screen,
} from '../screen.js';
import { askFirst } from '../components/ask-first.js';
import { renderEditWebhook, renderNewWebhook, renderWebhooks } from './webhooks.js';
import { renderDelivery } from './webhooks-delivery.js';
import { ADD_HEADER, EMPTY_WEBHOOK_FORM, REMOVE_HEADER, type WebhookForm, type WebhookFormValues } from './webhooks-form.js';
import { renderWebhook } from './webhooks-page.js';
import { isDeliveryStatus, webhookPath, type WebhookDetail } from './webhooks-parts.js';

/** Rows per page: a page stays quick to render whatever the account holds. */
const WEBHOOKS_PER_PAGE = 25;
const DELIVERIES_PER_PAGE = 25;

const LIST_NOTICES: Record<string, string> = { deleted: 'Webhook deleted. Its pending deliveries will not be sent.' };

const WEBHOOK_NOTICES: Record<string, string> = {
  created: 'Webhook created. Its signing secret is below: use it to check that events come from tagsvc.',
  updated: 'Changes saved. They apply to the next delivery.',
  enabled: 'Webhook enabled. New events are delivered again.',
  disabled: 'Webhook disabled. New events are not sent to it until you enable it.',
  rotated: 'New signing secret generated. Deliveries from now on are signed with it: give it to your receiver.',
};

type DeliveryRequest = FastifyRequest<{ Params: { id: string; deliveryId: string } }>;

function pageNumber(request: FastifyRequest): number {
  return Math.max(1, Math.floor(Number(queryParam(request, 'page') ?? 1)) || 1);
}

function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** The form as sent: header rows pair the n-th name with the n-th value. */
function formValues(body: unknown): WebhookFormValues {
  const names = fields(body, 'header_name');
  const values = fields(body, 'header_value');
  return {
    name: field(body, 'name'),
    url: field(body, 'url').trim(),
    events: fields(body, 'events'),
    headers: names.map((name, index) => ({ name: name.trim(), value: values[index] ?? '' })),
    enabled: field(body, 'enabled') === 'on',
  };
}

/** The values of a stored webhook, to edit. */
function storedValues(webhook: WebhookDetail): WebhookFormValues {
  return {
    name: webhook.name,
    url: webhook.url,
    events: webhook.events,
    headers: Object.entries(webhook.headers).map(([name, value]) => ({ name, value })),
    enabled: webhook.enabled,
  };
}

/**
 * The Add header / Remove buttons of a form sent without scripts: the same form back with one
 * row more or less, nothing saved. Undefined for a real submission.
 */
function editedRows(body: unknown, values: WebhookFormValues): WebhookFormValues | undefined {
  const intent = field(body, 'intent');
  if (intent === ADD_HEADER) return { ...values, headers: [...values.headers, { name: '', value: '' }] };
  if (!intent.startsWith(REMOVE_HEADER)) return undefined;
  const removed = Number(intent.slice(REMOVE_HEADER.length));
  return { ...values, headers: values.headers.filter((_row, index) => index !== removed) };
}

/**
 * What the form asks of the service, or the errors it has before any call: no event chosen, a
 * header row without a name, a header named twice. Empty rows are left out.
 */
function checkForm(values: WebhookFormValues) {
  const errors: Record<string, string> = {};
  const events = values.events.filter(isEventType);
  if (events.length === 0) errors.events = 'Choose at least one event.';
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  values.headers.forEach((row, index) => {
    if (!row.name && !row.value) return;
    if (!row.name) errors[`header-${index}`] = 'Enter the header’s name.';
    else if (seen.has(row.name.toLowerCase())) errors[`header-${index}`] = `${row.name} is given twice; keep one.`;
    seen.add(row.name.toLowerCase());
    headers[row.name] = row.value;
  });
  return { errors, input: { name: values.name, url: values.url, events, headers, enabled: values.enabled } };
}

/**
 * One refusal of the service as the form's message: under the field it names (a header's row
 * for `headers.<name>`), or the plan's limit for the whole form; undefined when not the form's.
 */
function problemOnForm(problem: ApiError, values: WebhookFormValues): Record<string, string> | undefined {
  if (problem.code === 'webhook_limit_reached') return { form: sentence(problem.message) };
  const name = problem.details.field;
  // The URL's refusals have codes of their own (invalid_url), and name it in the API's lower case.
  if (name === 'url') return { url: sentence(problem.message.replace(/^url\b/, 'URL')) };
  if (name?.startsWith('headers.')) {
    const header = name.slice('headers.'.length);
    const row = values.headers.findIndex((item) => item.name === header);
    const message = problem.message.startsWith(`${name} `) ? `Value ${problem.message.slice(name.length + 1)}` : problem.message;
    return { [row >= 0 ? `header-${row}` : 'headers']: sentence(message) };
  }
  return fieldErrors(problem, ['name', 'headers']);
}

/**
 * /dashboard/webhooks: the user's webhooks; each one's page with its secret, a test event and
 * the delivery log; and each delivery's page. Everything goes through the webhooks service as
 * the user, so another user's webhook or delivery answers 404 and the plan's limits hold.
 */
export const webhooksScreen: Screen = (app, context) => {
  const view = (request: FastifyRequest, user: SignedInUser) => ({ ...pageContext(context, request), user });

  app.get('/webhooks', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const page = pageNumber(request);
    const { total, webhooks } = await listWebhooks(context, actorOfUser(user), {
      limit: WEBHOOKS_PER_PAGE,
      offset: (page - 1) * WEBHOOKS_PER_PAGE,
    });
    const latest = await latestDeliveries(context, actorOfUser(user), { ids: webhooks.map((webhook) => webhook.id) });
    return html(
      reply,
      200,
      renderWebhooks(view(request, user), {
        webhooks: webhooks.map((webhook) => ({ webhook, last: latest.get(webhook.id) })),
        paging: { page, perPage: WEBHOOKS_PER_PAGE, total },
        max: PLAN_LIMITS[actorOfUser(user).plan].maxWebhooks,
        notice: LIST_NOTICES[queryParam(request, 'done') ?? ''],
      }),
    );
  });

  /** The test event a page was asked to show; an address naming no delivery of this webhook shows none. */
  const testedDelivery = async (actor: ReturnType<typeof actorOfUser>, webhookId: string, deliveryId: string) => {
    try {
      return await getDelivery(context, actor, { webhookId, deliveryId });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return undefined;
      throw error;
    }
  };

  app.get('/webhooks/new', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    return html(reply, 200, renderNewWebhook(view(request, user), { values: EMPTY_WEBHOOK_FORM, errors: {} }));
  });

  /**
   * A form POST (new or edit): its Add header / Remove rows answer the form again; a
   * submission goes to `save` once the form's own checks pass, and every problem of the form's,
   * its own and the service's, comes back on it at once (400) with nothing written.
   */
  const answerForm = async (
    request: FastifyRequest,
    reply: FastifyReply,
    render: (form: WebhookForm) => string,
    save: (input: ReturnType<typeof checkForm>['input']) => Promise<string>,
  ) => {
    const values = formValues(request.body);
    const edited = editedRows(request.body, values);
    if (edited) return html(reply, 200, render({ values: edited, errors: {} }));
    const { errors: own, input } = checkForm(values);
    const { saved, errors } = await submitForm({
      fields: (problem) => problemOnForm(problem, values),
      own,
      check: () => checkWebhookFields(context, input),
      save: () => save(input),
    });
    if (errors) return html(reply, 400, render({ values, errors }));
    return seeOther(reply, saved);
  };

  app.post('/webhooks', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    return answerForm(
      request,
      reply,
      (form) => renderNewWebhook(view(request, user), form),
      async (input) => `${webhookPath((await createWebhook(context, actorOfUser(user), input)).id)}?done=created`,
    );
  });

  app.get<{ Params: { id: string } }>('/webhooks/:id', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const actor = actorOfUser(user);
    const { id } = request.params;
    const webhook = await readOwn(() => getWebhook(context, actor, { id }));
    const status = queryParam(request, 'status');
    const filter = isDeliveryStatus(status) ? status : undefined;
    const page = pageNumber(request);
    const { total, deliveries } = await listDeliveries(context, actor, {
      id,
      status: filter,
      limit: DELIVERIES_PER_PAGE,
      offset: (page - 1) * DELIVERIES_PER_PAGE,
    });
    const testedId = queryParam(request, 'tested');
    const tested = testedId ? await testedDelivery(actor, id, testedId) : undefined;
    return html(
      reply,
      200,
      renderWebhook(view(request, user), {
        webhook,
        deliveries,
        status: filter,
        paging: { page, perPage: DELIVERIES_PER_PAGE, total },
        tested,
        testEvent: tested?.event ?? EVENT_TYPES[0],
        revealed: queryParam(request, 'secret') === 'shown',
        notice: WEBHOOK_NOTICES[queryParam(request, 'done') ?? ''],
      }),
    );
  });

  app.get<{ Params: { id: string } }>('/webhooks/:id/edit', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const webhook = await readOwn(() => getWebhook(context, actorOfUser(user), { id: request.params.id }));
    return html(reply, 200, renderEditWebhook(view(request, user), webhook, { values: storedValues(webhook), errors: {} }));
  });

  app.post<{ Params: { id: string } }>('/webhooks/:id', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const actor = actorOfUser(user);
    const webhook = await readOwn(() => getWebhook(context, actor, { id: request.params.id }));
    return answerForm(
      request,
      reply,
      (form) => renderEditWebhook(view(request, user), webhook, form),
      async (input) => {
        await readOwn(() => updateWebhook(context, actor, { id: webhook.id, ...input }));
        return `${webhookPath(webhook.id)}?done=updated`;
      },
    );
  });

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post<{ Params: { id: string } }>(`/webhooks/:id/${verb}`, { schema: { hide: true } }, async (request, reply) => {
      const user = signedInUser(request);
      const webhook = await readOwn(() => updateWebhook(context, actorOfUser(user), { id: request.params.id, enabled }));
      return seeOther(reply, `${webhookPath(webhook.id)}?done=${verb}d`);
    });
  }

  /** Rotate secret: without `confirmed=yes` (no scripts) a confirmation page first. */
  app.post<{ Params: { id: string } }>('/webhooks/:id/secret', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const actor = actorOfUser(user);
    const { id } = request.params;
    if (isConfirmed(request.body)) {
      await readOwn(() => rotateWebhookSecret(context, actor, { id }));
      return seeOther(reply, `${webhookPath(id)}?done=rotated&secret=shown`);
    }
    const webhook = await readOwn(() => getWebhook(context, actor, { id }));
    return askFirst(context, request, reply, user, '/dashboard/webhooks', {
      title: `Rotate the secret of “${webhook.name}”?`,
      text: 'A new secret is generated and the current one stops signing deliveries at once, so update your receiver.',
      action: webhookPath(id, 'secret'),
      button: 'Rotate secret',
      cancel: webhookPath(id),
    });
  });

  /** Delete: without `confirmed=yes` (no scripts) a confirmation page for the user's webhook (404 otherwise). */
  app.post<{ Params: { id: string } }>('/webhooks/:id/delete', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const actor = actorOfUser(user);
    const { id } = request.params;
    if (isConfirmed(request.body)) {
      await readOwn(() => deleteWebhook(context, actor, { id }));
      return seeOther(reply, '/dashboard/webhooks?done=deleted');
    }
    const webhook = await readOwn(() => getWebhook(context, actor, { id }));
    return askFirst(context, request, reply, user, '/dashboard/webhooks', {
      title: `Delete “${webhook.name}”?`,
      text: 'Events stop being sent to it at once, its pending deliveries are dropped and its delivery log is removed. This cannot be undone.',
      action: webhookPath(id, 'delete'),
      button: 'Delete',
      cancel: webhookPath(id),
    });
  });

  /** Send test event: one signed attempt now; the page shows its result from the delivery it recorded. */
  app.post<{ Params: { id: string } }>('/webhooks/:id/test', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const event = field(request.body, 'event');
    // Only a forged form names another event: the picker offers the catalogue.
    const sent = await readOwn(() =>
      sendTestEvent(context, actorOfUser(user), {
        webhookId: request.params.id,
        event: isEventType(event) ? event : EVENT_TYPES[0],
      }),
    );
    return seeOther(reply, `${webhookPath(request.params.id)}?tested=${encodeURIComponent(sent.delivery_id)}#test`);
  });

  const deliveryPage = async (
    request: DeliveryRequest,
    reply: FastifyReply,
    user: SignedInUser,
    page: { notice?: string; problem?: string },
    status = 200,
  ) => {
    const actor = actorOfUser(user);
    const { id, deliveryId } = request.params;
    const [webhook, delivery] = await readOwn(() =>
      Promise.all([getWebhook(context, actor, { id }), getDelivery(context, actor, { webhookId: id, deliveryId })]),
    );
    return html(reply, status, renderDelivery(view(request, user), { webhook, delivery, ...page }));
  };

  app.get<{ Params: { id: string; deliveryId: string } }>(
    '/webhooks/:id/deliveries/:deliveryId',
    { schema: { hide: true } },
    async (request, reply) => {
      const user = signedInUser(request);
      const done = queryParam(request, 'done') === 'retried';
      return deliveryPage(request, reply, user, { notice: done ? 'Retried: the result of the new attempt is below.' : undefined });
    },
  );

  /** Retry: one attempt now for a failed delivery; one already being retried (or no longer failed) says so. */
  app.post<{ Params: { id: string; deliveryId: string } }>(
    '/webhooks/:id/deliveries/:deliveryId/retry',
    { schema: { hide: true } },
    async (request, reply) => {
      const user = signedInUser(request);
      const { id, deliveryId } = request.params;
      try {
        await readOwn(() => retryDelivery(context, actorOfUser(user), { webhookId: id, deliveryId }));
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'invalid_request') throw error;
        return deliveryPage(request, reply, user, { problem: sentence(error.message) }, 409);
      }
      return seeOther(reply, `${webhookPath(id, 'deliveries', deliveryId)}?done=retried`);
    },
  );
};
