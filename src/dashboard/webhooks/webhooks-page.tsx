import type { SignedInUser } from '../../features/accounts/index.js';
import { EVENT_TYPES } from '../../features/events/index.js';
import { ActionButton, Alert, ConfirmButton, CopyButton, CsrfField, SelectField } from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import { DataTable, Pager, When } from '../components/table.js';
import {
  DELIVERY_STATUSES,
  DeliveryStatusBadge,
  Duration,
  ResponseCode,
  webhookPath,
  type DeliveryDetail,
  type DeliveryStatus,
  type DeliverySummary,
  type WebhookDetail,
} from './webhooks-parts.js';

export interface WebhookPage {
  webhook: WebhookDetail;
  deliveries: readonly DeliverySummary[];
  /** The delivery log's filter (none: every status) and page. */
  status: DeliveryStatus | undefined;
  paging: { page: number; perPage: number; total: number };
  /** The delivery of the test event just sent, to show its result. */
  tested?: DeliveryDetail;
  /** The event chosen in the test picker. */
  testEvent: string;
  /** Whether the signing secret is shown (Reveal without scripts asks for the page with it shown). */
  revealed: boolean;
  notice?: string;
}

/** A secret as its `whsec_` prefix (when it has that form) and dots: nothing of the key itself. */
function masked(secret: string): string {
  return `${secret.startsWith('whsec_') ? 'whsec_' : ''}${'•'.repeat(16)}`;
}

function SigningSecret({ csrf, webhook, revealed }: { csrf: string; webhook: WebhookDetail; revealed: boolean }) {
  return (
    <section class="card" aria-labelledby="secret-heading">
      <h2 id="secret-heading">Signing secret</h2>
      <p class="muted">
        Every delivery is signed with it (Standard Webhooks: the <code>webhook-id</code>, <code>webhook-timestamp</code> and{' '}
        <code>webhook-signature</code> headers). Check the signature with it before trusting an event.
      </p>
      <div class="code secret">
        <pre tabindex={0}>
          <code class="secret-mask" hidden={revealed} aria-label="Secret hidden">
            {masked(webhook.secret)}
          </code>
          <code id="webhook-secret" hidden={!revealed}>
            {webhook.secret}
          </code>
        </pre>
        {/* Without scripts Reveal loads the page with the secret shown; webhooks.js toggles it in place. */}
        <form method="get" action={webhookPath(webhook.id)} class="inline-form" data-reveal="">
          <input type="hidden" name="secret" value={revealed ? '' : 'shown'} />
          <button type="submit" class="button button-quiet" aria-controls="webhook-secret" aria-pressed={revealed ? 'true' : 'false'}>
            {revealed ? 'Hide' : 'Reveal'}
          </button>
        </form>
        <CopyButton target="webhook-secret" />
      </div>
      <ConfirmButton
        csrf={csrf}
        action={webhookPath(webhook.id, 'secret')}
        question="Rotate the secret? The current one stops signing deliveries at once."
        label="Rotate secret"
      />
    </section>
  );
}

function Settings({ webhook }: { webhook: WebhookDetail }) {
  const headers = Object.keys(webhook.headers);
  const { stats } = webhook;
  return (
    <section class="card" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <dl class="facts">
        <div>
          <dt>URL</dt>
          <dd>
            <code>{webhook.url}</code>
          </dd>
        </div>
        <div>
          <dt>Events</dt>
          <dd>
            <ul class="chips chips-end">
              {webhook.events.map((event) => (
                <li key={event}>{event}</li>
              ))}
            </ul>
          </dd>
        </div>
        <div>
          <dt>Custom headers</dt>
          <dd>
            {headers.length === 0 ? (
              <span class="muted">None</span>
            ) : (
              <ul class="chips chips-end">
                {headers.map((name) => (
                  <li key={name}>{name}</li>
                ))}
              </ul>
            )}
          </dd>
        </div>
        <div>
          <dt>Deliveries</dt>
          <dd>{`${stats.total_deliveries} in all · ${stats.successful} succeeded · ${stats.failed} failed`}</dd>
        </div>
        <div>
          <dt>Last delivery</dt>
          <dd>
            <When at={stats.last_delivery_at} />
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <When at={webhook.created_at} />
          </dd>
        </div>
      </dl>
    </section>
  );
}

/** The outcome of the test event just sent: delivered or not, the status code, the error. */
function TestResult({ webhookId, delivery }: { webhookId: string; delivery: DeliveryDetail }) {
  const attempt = delivery.attempts.at(-1);
  const delivered = delivery.status === 'success';
  return (
    <div class={delivered ? 'alert alert-success test-result' : 'alert alert-error test-result'} role="status">
      <p>
        <strong>{delivered ? 'Test event delivered.' : 'Test event not delivered.'}</strong> {`${delivery.event}: `}
        {delivery.response_code === null ? 'no answer' : `HTTP ${delivery.response_code}`}
        {delivery.response_time_ms !== null && ` in ${delivery.response_time_ms} ms`}.
      </p>
      {attempt?.error && <p class="test-error">{attempt.error}</p>}
      <p>
        <a href={webhookPath(webhookId, 'deliveries', delivery.id)}>See the delivery</a>
      </p>
    </div>
  );
}

function TestEvent({ csrf, page }: { csrf: string; page: WebhookPage }) {
  return (
    <section class="card" aria-labelledby="test-heading" id="test">
      <h2 id="test-heading">Test event</h2>
      <p class="muted">Sends a signed sample of the event to the URL now, once, and records it in the delivery log.</p>
      {page.tested && <TestResult webhookId={page.webhook.id} delivery={page.tested} />}
      <form method="post" action={webhookPath(page.webhook.id, 'test')} class="test-form">
        <CsrfField token={csrf} />
        <SelectField
          name="event"
          label="Event"
          value={page.testEvent}
          options={EVENT_TYPES.map((event) => ({ value: event, label: event }))}
        />
        <button type="submit" class="button button-secondary">
          Send test event
        </button>
      </form>
    </section>
  );
}

function StatusFilter({ webhookId, current }: { webhookId: string; current: DeliveryStatus | undefined }) {
  const base = webhookPath(webhookId);
  const items = [{ status: undefined, label: 'All' }, ...DELIVERY_STATUSES];
  return (
    <nav class="filter" aria-label="Show deliveries">
      <ul>
        {items.map((item) => (
          <li key={item.label}>
            <a
              href={item.status ? `${base}?status=${item.status}#deliveries` : `${base}#deliveries`}
              aria-current={item.status === current ? 'true' : undefined}
            >
              {item.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function DeliveryRow({ webhookId, delivery }: { webhookId: string; delivery: DeliverySummary }) {
  return (
    <tr>
      <th scope="row" data-label="Event">
        <a href={webhookPath(webhookId, 'deliveries', delivery.id)}>{delivery.event}</a>
        {delivery.test && <span class="badge badge-test">test</span>}
      </th>
      <td data-label="Status">
        <DeliveryStatusBadge status={delivery.status} />
      </td>
      <td data-label="Response">
        <ResponseCode code={delivery.response_code} />
      </td>
      <td data-label="Duration">
        <Duration ms={delivery.response_time_ms} />
      </td>
      <td data-label="Attempts">{delivery.attempt}</td>
      <td data-label="Time">
        <When at={delivery.delivered_at ?? delivery.created_at} />
      </td>
    </tr>
  );
}

function DeliveryLog({ page }: { page: WebhookPage }) {
  const { webhook, status, deliveries } = page;
  const path = status ? `${webhookPath(webhook.id)}?status=${status}` : webhookPath(webhook.id);
  return (
    <section class="card" aria-labelledby="deliveries-heading" id="deliveries">
      <div class="card-head">
        <h2 id="deliveries-heading">Delivery log</h2>
        <StatusFilter webhookId={webhook.id} current={status} />
      </div>
      {deliveries.length === 0 ? (
        <p class="muted">{status ? 'No deliveries with this status.' : 'No deliveries yet. Send a test event to see one here.'}</p>
      ) : (
        <DataTable label="Deliveries" headings={['Event', 'Status', 'Response', 'Duration', 'Attempts', 'Time']}>
          {deliveries.map((delivery) => (
            <DeliveryRow key={delivery.id} webhookId={webhook.id} delivery={delivery} />
          ))}
        </DataTable>
      )}
      <Pager {...page.paging} path={path} label="Pages of deliveries" />
    </section>
  );
}

/** /dashboard/webhooks/{id}: a webhook's settings, secret, test event and delivery log. */
export function renderWebhook(context: PageContext & { user: SignedInUser }, page: WebhookPage): string {
  const { webhook } = page;
  const action = (verb: string) => webhookPath(webhook.id, verb);
  return renderAppPage(
    context,
    webhook.name,
    <>
      <p class="breadcrumb">
        <a href="/dashboard/webhooks">Webhooks</a>
      </p>
      <div class="page-head">
        <div>
          <h1>
            {webhook.name}{' '}
            <span class={webhook.enabled ? 'state state-on' : 'state state-off'}>{webhook.enabled ? 'Enabled' : 'Disabled'}</span>
          </h1>
          <p class="webhook-address">
            <code>{webhook.url}</code>
          </p>
        </div>
        <div class="row-actions">
          <a class="button button-quiet" href={action('edit')}>
            Edit
          </a>
          <ActionButton
            csrf={context.csrf}
            action={action(webhook.enabled ? 'disable' : 'enable')}
            label={webhook.enabled ? 'Disable' : 'Enable'}
          />
          <ConfirmButton
            csrf={context.csrf}
            action={action('delete')}
            question={`Delete “${webhook.name}”? Its delivery log goes with it; pending deliveries are not sent.`}
            label="Delete"
            danger
          />
        </div>
      </div>
      {page.notice && <Alert kind="success">{page.notice}</Alert>}
      <div class="grid grid-wide-first">
        <div class="stack-cards">
          <Settings webhook={webhook} />
        </div>
        <div class="stack-cards">
          <SigningSecret csrf={context.csrf} webhook={webhook} revealed={page.revealed} />
          <TestEvent csrf={context.csrf} page={page} />
        </div>
      </div>
      <DeliveryLog page={page} />
    </>,
    { scripts: ['webhooks.js'] },
  );
}
