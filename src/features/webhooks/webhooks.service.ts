import type { ServiceContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import type { DeliveriesTable, DeliveryStatus, EventsTable, WebhooksTable } from '../../db/schema.js';
import { ApiError, checkFields, invalidRequest, notFound, validationError } from '../../errors.js';
import { cleanLabel } from '../../lib/text-fields.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { isPrivateHost, refusePrivateHost, type OutboundAgents } from '../../lib/outbound.js';
import { PLAN_LIMITS, requireAccess, requirePermission, scopeOf, type Actor } from '../accounts/index.js';
import { eventSamples, type EventType } from '../events/index.js';
import { recordAudit } from '../audit/index.js';
import { lockAccount } from '../../db/locks.js';
import * as repo from './webhooks.repository.js';
import { postJson, type SendResult } from './sender.js';
import { generateSecret, PROTECTED_HEADERS, secretProblem, signedHeaders } from './signing.js';
import { webhookSecretInClear, sealWebhookSecret } from './secret-sealing.js';
import { transaction } from '../../db/transaction.js';

export interface WebhookInput {
  name?: string;
  url?: string;
  events?: EventType[];
  secret?: string;
  headers?: Record<string, string>;
  enabled?: boolean;
}

const USER_AGENT = 'tagsvc-webhooks/1.0';
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_HEADERS = 20;

/** A webhook as its owner sees it, with its secret in clear (stored sealed). */
function toWebhookView(ctx: ServiceContext, row: WebhooksTable) {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    events: JSON.parse(row.events) as EventType[],
    enabled: row.enabled === 1,
    secret: webhookSecretInClear(ctx, row.secret),
    headers: JSON.parse(row.headers) as Record<string, string>,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toDeliveryView(row: DeliveriesTable) {
  return {
    id: row.id,
    event: row.event_type,
    status: row.status,
    response_code: row.response_code,
    response_time_ms: row.response_time_ms,
    attempt: row.attempt,
    delivered_at: row.delivered_at,
    next_attempt_at: row.next_attempt_at,
    test: row.test === 1,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    created_at: row.created_at,
  };
}

/** A secret given by the caller, checked, in its stored (sealed) form. */
function sealedSecret(ctx: ServiceContext, secret: string): string {
  const problem = secretProblem(secret);
  if (problem) throw validationError('secret', problem);
  return sealWebhookSecret(ctx, secret);
}

/**
 * What a refusal of a receiver on a private network adds: the setting that allows one, so a
 * developer trying a receiver on their own machine learns it from the error itself.
 */
const PRIVATE_NETWORKS_SWITCH = 'in development, start the server with ALLOW_PRIVATE_NETWORKS=true';

/**
 * HTTPS only, no credentials in the URL, and (unless allowed) no private or reserved host.
 * ALLOW_PRIVATE_NETWORKS also lets plain http:// reach a receiver on a loopback or private
 * address, for development on one machine or network; a public host still needs https, so a
 * payload never crosses the internet unencrypted.
 */
async function checkUrl(url: string, agents: OutboundAgents): Promise<string> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ApiError('invalid_url', 'url is not a valid URL', { field: 'url' });
  }
  const privateHttp = parsed.protocol === 'http:' && (await isPrivateHost(parsed));
  if (parsed.protocol !== 'https:' && !(privateHttp && agents.allowPrivateNetworks)) {
    const message = agents.allowPrivateNetworks
      ? 'url must be an https:// URL (http:// only for a receiver on a loopback or private address)'
      : privateHttp
        ? `url must be an https:// URL; to allow http:// to a receiver on a private network ${PRIVATE_NETWORKS_SWITCH}`
        : 'url must be an https:// URL';
    throw new ApiError('invalid_url', message, { field: 'url' });
  }
  if (parsed.username || parsed.password) throw new ApiError('invalid_url', 'url must not contain credentials', { field: 'url' });
  const refused = await refusePrivateHost(parsed, agents.allowPrivateNetworks);
  if (refused) {
    // A host that does not resolve stays refused with the setting: only a private one is told of it.
    const hint = (await isPrivateHost(parsed)) ? `; to allow private networks ${PRIVATE_NETWORKS_SWITCH}` : '';
    throw new ApiError('invalid_url', `url is not publicly reachable: ${refused}${hint}`, { field: 'url' });
  }
  return parsed.toString();
}

function checkHeaders(headers: Record<string, string>): Record<string, string> {
  const entries = Object.entries(headers);
  if (entries.length > MAX_HEADERS) throw validationError('headers', `at most ${MAX_HEADERS} custom headers`);
  for (const [name, value] of entries) {
    const field = `headers.${name}`;
    if (!HEADER_NAME.test(name)) throw validationError(field, `${name} is not a valid header name`);
    if (PROTECTED_HEADERS.includes(name.toLowerCase()))
      throw validationError(field, `${name} is set by the service and cannot be replaced`);
    const problem = headerValueProblem(value);
    if (problem) throw validationError(field, `${field} ${problem}`);
  }
  return headers;
}

/**
 * RFC 9110 field-value, ASCII only: visible characters (0x21–0x7E), with spaces and tabs
 * allowed between them but not at either end. obs-text (0x80–0xFF) is refused: RFC 9110 keeps
 * it for old senders only, receivers read it as opaque bytes, and anything beyond Latin-1
 * (emoji, U+2028) cannot be sent in a header at all.
 */
function headerValueProblem(value: string): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (!/^[\t\x20-\x7e]*$/.test(value)) return 'may hold only visible ASCII characters, spaces and tabs';
  if (/^[\t ]|[\t ]$/.test(value)) return 'must not start or end with a space or tab';
  return undefined;
}

/**
 * The fields of a webhook to create or change, each checked (an absent one stays absent) and
 * every refusal at once (checkFields); the secret in its stored form. Writes nothing: a form
 * with problems of its own asks it too, to show the service's beside them.
 */
export function checkWebhookFields(ctx: ServiceContext, input: Omit<WebhookInput, 'events' | 'enabled'>) {
  return checkFields({
    name: () => (input.name === undefined ? undefined : cleanLabel(input.name, 'name')),
    url: () => (input.url === undefined ? undefined : checkUrl(input.url, ctx.agents)),
    headers: () => (input.headers === undefined ? undefined : checkHeaders(input.headers)),
    secret: () => (input.secret === undefined ? undefined : sealedSecret(ctx, input.secret)),
  });
}

async function requireWebhook(db: Db, actor: Actor, id: string): Promise<WebhooksTable> {
  return requireAccess(await repo.findWebhook(db, id), scopeOf(actor), 'Webhook');
}

export async function createWebhook(
  ctx: ServiceContext,
  actor: Actor,
  input: Required<Pick<WebhookInput, 'name' | 'url' | 'events'>> & WebhookInput,
) {
  requirePermission(actor, 'webhooks:write');
  const scope = scopeOf(actor);
  // Every field is given, so every checked value is there.
  const checked = await checkWebhookFields(ctx, { ...input, headers: input.headers ?? {}, secret: input.secret ?? generateSecret() });
  const max = PLAN_LIMITS[actor.plan].maxWebhooks;
  const now = isoNow(ctx.clock);
  const row: WebhooksTable = {
    id: newId('wh'),
    environment: scope.environment,
    owner_id: scope.userId,
    organization_id: scope.organizationId,
    name: checked.name!,
    url: checked.url!,
    events: JSON.stringify([...new Set(input.events)]),
    secret: checked.secret!,
    headers: JSON.stringify(checked.headers),
    enabled: input.enabled === false ? 0 : 1,
    created_at: now,
    updated_at: now,
  };
  // Count and insert under the scope's lock: parallel creations cannot pass the maximum.
  await transaction(ctx.db, async (trx) => {
    if (max !== null) {
      await lockAccount(trx, scope);
      if ((await repo.countWebhooks(trx, scope)) >= max) {
        throw new ApiError('webhook_limit_reached', `The ${actor.plan} plan allows ${max} webhooks; delete one or upgrade to Enterprise`);
      }
    }
    await repo.insertWebhook(trx, row);
    await recordAudit(ctx, trx, actor, { action: 'webhook.created', targetId: row.id, environment: row.environment });
  });
  return toWebhookView(ctx, row);
}

export async function listWebhooks(ctx: ServiceContext, actor: Actor, query: { enabled?: boolean; limit: number; offset: number }) {
  requirePermission(actor, 'webhooks:read');
  const { total, rows } = await repo.listWebhooks(ctx.db, scopeOf(actor), query);
  return { total, webhooks: rows.map((row) => toWebhookView(ctx, row)) };
}

export async function getWebhook(ctx: ServiceContext, actor: Actor, { id }: { id: string }) {
  requirePermission(actor, 'webhooks:read');
  const row = await requireWebhook(ctx.db, actor, id);
  return { ...toWebhookView(ctx, row), stats: await repo.webhookStats(ctx.db, row.id) };
}

/** A webhook's current signing secret, in clear (an idempotent replay of its creation shows it). */
export async function currentWebhookSecret(ctx: ServiceContext, actor: Actor, { id }: { id: string }): Promise<string> {
  requirePermission(actor, 'webhooks:write');
  return webhookSecretInClear(ctx, (await requireWebhook(ctx.db, actor, id)).secret);
}

export async function updateWebhook(ctx: ServiceContext, actor: Actor, { id, ...input }: { id: string } & WebhookInput) {
  requirePermission(actor, 'webhooks:write');
  const row = await requireWebhook(ctx.db, actor, id);
  const checked = await checkWebhookFields(ctx, input);
  const changes: Partial<WebhooksTable> = { updated_at: isoNow(ctx.clock) };
  if (checked.name !== undefined) changes.name = checked.name;
  if (checked.url !== undefined) changes.url = checked.url;
  if (input.events !== undefined) changes.events = JSON.stringify([...new Set(input.events)]);
  if (checked.secret !== undefined) changes.secret = checked.secret;
  if (checked.headers !== undefined) changes.headers = JSON.stringify(checked.headers);
  if (input.enabled !== undefined) changes.enabled = input.enabled ? 1 : 0;
  await transaction(ctx.db, async (trx) => {
    await repo.updateWebhookRow(trx, row.id, changes);
    const details = { fields: Object.keys(input).join(',') };
    await recordAudit(ctx, trx, actor, { action: 'webhook.updated', targetId: row.id, environment: row.environment, details });
  });
  return { ...toWebhookView(ctx, { ...row, ...changes }), stats: await repo.webhookStats(ctx.db, row.id) };
}

/** A new generated signing secret; deliveries from now on (retries included) are signed with it. */
export function rotateWebhookSecret(ctx: ServiceContext, actor: Actor, { id }: { id: string }) {
  requirePermission(actor, 'webhooks:write');
  return updateWebhook(ctx, actor, { id, secret: generateSecret() });
}

/** Deleting a webhook removes its deliveries too, so pending ones are never sent. */
export async function deleteWebhook(ctx: ServiceContext, actor: Actor, { id }: { id: string }): Promise<void> {
  requirePermission(actor, 'webhooks:write');
  const row = await requireWebhook(ctx.db, actor, id);
  await transaction(ctx.db, async (trx) => {
    await repo.deleteWebhookRow(trx, row.id);
    await recordAudit(ctx, trx, actor, { action: 'webhook.deleted', targetId: row.id, environment: row.environment });
  });
}

export async function listDeliveries(
  ctx: ServiceContext,
  actor: Actor,
  { id, ...query }: { id: string; status?: DeliveryStatus; limit: number; offset: number },
) {
  requirePermission(actor, 'webhooks:read');
  const row = await requireWebhook(ctx.db, actor, id);
  const { total, rows } = await repo.listDeliveries(ctx.db, row.id, query);
  return { total, deliveries: rows.map(toDeliveryView) };
}

/**
 * The newest delivery of each of the given webhooks, by webhook id, for a list of webhooks: one
 * query for the whole page. Webhooks without deliveries, and those the actor does not reach, are
 * left out.
 */
export async function latestDeliveries(ctx: ServiceContext, actor: Actor, { ids }: { ids: string[] }) {
  requirePermission(actor, 'webhooks:read');
  const rows = await repo.latestDeliveries(ctx.db, scopeOf(actor), ids);
  return new Map(rows.map((row) => [row.webhook_id, toDeliveryView(row)]));
}

async function requireDelivery(ctx: ServiceContext, actor: Actor, webhookId: string, deliveryId: string) {
  const webhook = await requireWebhook(ctx.db, actor, webhookId);
  const delivery = await repo.findDelivery(ctx.db, webhook.id, deliveryId);
  if (!delivery) throw notFound('Delivery');
  return { webhook, delivery };
}

export async function getDelivery(ctx: ServiceContext, actor: Actor, { webhookId, deliveryId }: { webhookId: string; deliveryId: string }) {
  requirePermission(actor, 'webhooks:read');
  const { delivery } = await requireDelivery(ctx, actor, webhookId, deliveryId);
  return withAttempts(ctx.db, delivery);
}

async function withAttempts(db: Db, delivery: DeliveriesTable) {
  const attempts = await repo.listAttempts(db, delivery.id);
  return {
    ...toDeliveryView(delivery),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      timestamp: a.attempted_at,
      response_code: a.response_code,
      response_time_ms: a.response_time_ms,
      response_body: a.response_body,
      error: a.error,
    })),
  };
}

/** The webhook fields an attempt needs, as stored (the secret sealed). */
export interface Target {
  url: string;
  secret: string;
  headers: string;
}

/** Sends one attempt of a delivery: signed fresh, same webhook-id (the event id) every time. */
export async function sendAttempt(
  ctx: ServiceContext,
  target: Target,
  delivery: Pick<DeliveriesTable, 'event_id' | 'payload'>,
): Promise<SendResult> {
  const started = performance.now();
  try {
    const timestamp = Math.floor(ctx.clock.now().getTime() / 1000);
    const custom = JSON.parse(target.headers) as Record<string, string>;
    const headers = {
      ...custom,
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signedHeaders(webhookSecretInClear(ctx, target.secret), delivery.event_id, timestamp, delivery.payload),
    };
    return await postJson(ctx.agents, target.url, delivery.payload, headers, ctx.config.webhookTimeoutMs);
  } catch (error) {
    // A send that cannot even be made (a header Node refuses, a stored row it cannot read) is
    // a failed attempt like any other: recorded and retried on the schedule, never left leased.
    return {
      ok: false,
      responseCode: null,
      responseTimeMs: Math.round(performance.now() - started),
      responseBody: null,
      error: `could not send: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** Attempts in all: the first plus one per delay of the retry schedule. */
export function maxAttempts(ctx: ServiceContext): number {
  return ctx.config.webhookRetrySchedule.length + 1;
}

/** The delay before automatic attempt `attempt + 1`, with ±20 % jitter so retries spread out. */
function retryDelayMs(ctx: ServiceContext, attempt: number): number {
  const base = ctx.config.webhookRetrySchedule[attempt - 1]!;
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/**
 * Records an attempt and moves the delivery on: success; another automatic attempt later
 * while the schedule has one (`automatic`); else failed. One transaction, lease released.
 */
export async function recordAttempt(
  ctx: ServiceContext,
  delivery: DeliveriesTable,
  result: SendResult,
  automatic: boolean,
): Promise<DeliveriesTable> {
  const now = ctx.clock.now();
  const attempt = delivery.attempt + 1;
  // A test event gets one attempt: the worker's, too, when it takes over from a request that died.
  const retry = !result.ok && automatic && delivery.test !== 1 && attempt < maxAttempts(ctx);
  const status: DeliveryStatus = result.ok ? 'success' : retry ? 'pending' : 'failed';
  const changes: Partial<DeliveriesTable> = {
    status,
    attempt,
    next_attempt_at: retry ? new Date(now.getTime() + retryDelayMs(ctx, attempt)).toISOString() : null,
    claimed_until: null,
    response_code: result.responseCode,
    response_time_ms: result.responseTimeMs,
    delivered_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await transaction(ctx.db, async (trx) => {
    await repo.insertAttempt(trx, {
      id: newId('att'),
      delivery_id: delivery.id,
      attempt,
      attempted_at: now.toISOString(),
      response_code: result.responseCode,
      response_time_ms: result.responseTimeMs,
      response_body: result.responseBody,
      error: result.error,
    });
    await repo.updateDeliveryRow(trx, delivery.id, changes);
  });
  ctx.metrics?.deliveryAttempts.inc({ outcome: result.ok ? 'success' : retry ? 'retry' : 'failed' });
  return { ...delivery, ...changes };
}

/** Outbox events waiting to become deliveries, and deliveries waiting for an attempt (metrics). */
export function webhookQueueDepths(db: Db) {
  return repo.queueDepths(db);
}

/** A delivery of an event to a webhook, before any attempt: due now. */
export function newDelivery(
  webhookId: string,
  event: { id: string; type: string; payload: string },
  now: string,
  options: { test: boolean },
): DeliveriesTable {
  return {
    id: newId('dlv'),
    webhook_id: webhookId,
    event_id: event.id,
    event_type: event.type,
    payload: event.payload,
    test: options.test ? 1 : 0,
    status: 'pending',
    attempt: 0,
    next_attempt_at: now,
    claimed_until: null,
    response_code: null,
    response_time_ms: null,
    delivered_at: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * POST /test: a signed test event sent now, carrying the catalogue's sample payload of its type, recorded as a delivery (never retried automatically).
 * The delivery is written leased to this request, as a manual retry is: if the process dies
 * mid-send, the worker makes the attempt once the lease runs out, instead of the delivery
 * staying pending for ever.
 */
export async function sendTestEvent(ctx: ServiceContext, actor: Actor, { webhookId, event }: { webhookId: string; event: EventType }) {
  requirePermission(actor, 'webhooks:write');
  const webhook = await requireWebhook(ctx.db, actor, webhookId);
  const now = isoNow(ctx.clock);
  const eventId = newId('evt');
  const payload = JSON.stringify({ id: eventId, event, created_at: now, test: true, data: eventSamples(ctx.config.publicBaseUrl)[event] });
  const delivery = {
    ...newDelivery(webhook.id, { id: eventId, type: event, payload }, now, { test: true }),
    claimed_until: manualLeaseEnd(ctx, now),
  };
  await transaction(ctx.db, async (trx) => {
    await repo.insertDelivery(trx, delivery);
    await recordAudit(ctx, trx, actor, {
      action: 'webhook.tested',
      targetId: webhook.id,
      environment: webhook.environment,
      details: { event, delivery_id: delivery.id },
    });
  });
  const result = await sendAttempt(ctx, webhook, delivery);
  const recorded = await recordAttempt(ctx, delivery, result, false);
  return {
    delivery_id: recorded.id,
    status: recorded.status,
    response_code: recorded.response_code,
    response_time_ms: recorded.response_time_ms,
  };
}

/** How long past the timeout a manual attempt holds its delivery (as the worker's lease does). */
const MANUAL_LEASE_MARGIN_MS = 5000;

function manualLeaseEnd(ctx: ServiceContext, now: string): string {
  return new Date(Date.parse(now) + ctx.config.webhookTimeoutMs + MANUAL_LEASE_MARGIN_MS).toISOString();
}

/** POST /retry: one attempt now for a failed delivery; the result is final either way. */
export async function retryDelivery(
  ctx: ServiceContext,
  actor: Actor,
  { webhookId, deliveryId }: { webhookId: string; deliveryId: string },
) {
  requirePermission(actor, 'webhooks:write');
  const { webhook, delivery } = await requireDelivery(ctx, actor, webhookId, deliveryId);
  if (delivery.status !== 'failed') throw invalidRequest(`Only failed deliveries can be retried; this one is ${delivery.status}`);
  const now = isoNow(ctx.clock);
  const claimed = await transaction(ctx.db, async (trx) => {
    if (!(await repo.claimFailedDelivery(trx, delivery.id, { now, leaseUntil: manualLeaseEnd(ctx, now) }))) return false;
    await recordAudit(ctx, trx, actor, { action: 'delivery.retried', targetId: delivery.id, environment: webhook.environment });
    return true;
  });
  if (!claimed) throw invalidRequest('Only failed deliveries can be retried; this one is being retried already');
  const result = await sendAttempt(ctx, webhook, delivery);
  return withAttempts(ctx.db, await recordAttempt(ctx, delivery, result, false));
}

/**
 * The event types the enabled webhooks of an owner scope subscribe to: producers of costly
 * events (the view rollup) write only those. Runs in the producer's transaction.
 */
export async function subscribedEventTypes(trx: Db, owner: Pick<EventsTable, 'environment' | 'owner_id' | 'organization_id'>) {
  const types = new Set<EventType>();
  for (const webhook of await repo.subscribedWebhooks(trx, owner)) {
    for (const type of JSON.parse(webhook.events) as EventType[]) types.add(type);
  }
  return types;
}

/** Delivery records (with their attempts) and dispatched events older than `before`. */
export function purgeDeliveriesBefore(ctx: ServiceContext, before: string) {
  return repo.purgeDeliveriesBefore(ctx.db, before);
}
