import type { SignedInUser } from '../../features/accounts/index.js';
import { Alert } from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import { DataTable, Pager, When } from '../components/table.js';
import { WebhookFormFields, type WebhookForm } from './webhooks-form.js';
import { DeliveryStatusBadge, webhookPath, type DeliverySummary, type WebhookSummary } from './webhooks-parts.js';

type UserPage = PageContext & { user: SignedInUser };

export interface WebhooksPage {
  /** Each webhook of the page with its latest delivery, if it had one. */
  webhooks: ReadonlyArray<{ webhook: WebhookSummary; last: DeliverySummary | undefined }>;
  paging: { page: number; perPage: number; total: number };
  /** The plan's maximum number of webhooks; null when unlimited. */
  max: number | null;
  notice?: string;
}

const SCRIPTS = { scripts: ['webhooks.js'] };

function NewWebhookLink() {
  return (
    <a class="button button-primary" href="/dashboard/webhooks/new">
      New Webhook
    </a>
  );
}

function WebhookRow({ webhook, last }: WebhooksPage['webhooks'][number]) {
  const count = webhook.events.length;
  return (
    <tr>
      <th scope="row" data-label="Name">
        <a href={webhookPath(webhook.id)}>{webhook.name}</a>
      </th>
      <td data-label="URL">
        <code class="webhook-url">{webhook.url}</code>
      </td>
      <td data-label="Events" title={webhook.events.join(', ')}>
        {`${count} ${count === 1 ? 'event' : 'events'}`}
      </td>
      <td data-label="State">
        <span class={webhook.enabled ? 'state state-on' : 'state state-off'}>{webhook.enabled ? 'Enabled' : 'Disabled'}</span>
      </td>
      <td data-label="Last delivery">
        {last ? (
          <span class="last-delivery">
            <DeliveryStatusBadge status={last.status} />
            <When at={last.delivered_at ?? last.created_at} />
          </span>
        ) : (
          <span class="muted">None yet</span>
        )}
      </td>
    </tr>
  );
}

/** /dashboard/webhooks: the user's webhooks, their state and latest delivery. */
export function renderWebhooks(context: UserPage, page: WebhooksPage): string {
  const { total } = page.paging;
  return renderAppPage(
    context,
    'Webhooks',
    <>
      <div class="page-head">
        <div>
          <h1>Webhooks</h1>
          <p class="lead">tagsvc posts a signed JSON event to your URL when your tags, files and QR codes change or are viewed.</p>
        </div>
        <NewWebhookLink />
      </div>
      {page.notice && <Alert kind="success">{page.notice}</Alert>}
      <section class="card" aria-labelledby="webhooks-heading">
        <h2 id="webhooks-heading">
          Your webhooks <span class="muted count">{page.max === null ? `${total}` : `${total} of ${page.max} on your plan`}</span>
        </h2>
        {page.max !== null && total >= page.max && (
          <p class="muted">
            {page.max === 0
              ? 'Your plan does not include webhooks. Upgrade to Pro or Enterprise to add one.'
              : 'Every webhook of your plan is in use: delete one to add another, or upgrade to Enterprise for unlimited webhooks.'}
          </p>
        )}
        {total === 0 ? (
          page.max !== 0 && (
            <div class="empty">
              <p>No webhooks yet. Add one to get events at your own endpoint as they happen.</p>
            </div>
          )
        ) : (
          <>
            <DataTable label="Webhooks" headings={['Name', 'URL', 'Events', 'State', 'Last delivery']}>
              {page.webhooks.map((item) => (
                <WebhookRow key={item.webhook.id} {...item} />
              ))}
            </DataTable>
            <Pager {...page.paging} path="/dashboard/webhooks" label="Pages of webhooks" />
          </>
        )}
      </section>
    </>,
  );
}

/** /dashboard/webhooks/new: the form of a new webhook. */
export function renderNewWebhook(context: UserPage, form: WebhookForm): string {
  return renderAppPage(
    context,
    'New Webhook',
    <>
      <p class="breadcrumb">
        <a href="/dashboard/webhooks">Webhooks</a>
      </p>
      <h1>New Webhook</h1>
      <p class="lead">Choose the events to receive. A signing secret is generated for you and shown once the webhook exists.</p>
      <section class="card" aria-label="New webhook">
        <WebhookFormFields
          csrf={context.csrf}
          action="/dashboard/webhooks"
          form={form}
          submit="Create Webhook"
          cancel="/dashboard/webhooks"
        />
      </section>
    </>,
    SCRIPTS,
  );
}

/** /dashboard/webhooks/{id}/edit: the same form, filled with the webhook's settings. */
export function renderEditWebhook(context: UserPage, webhook: { id: string; name: string }, form: WebhookForm): string {
  const path = webhookPath(webhook.id);
  return renderAppPage(
    context,
    `Edit ${webhook.name}`,
    <>
      <p class="breadcrumb">
        <a href="/dashboard/webhooks">Webhooks</a> / <a href={path}>{webhook.name}</a>
      </p>
      <h1>Edit webhook</h1>
      <section class="card" aria-label="Edit webhook">
        <WebhookFormFields csrf={context.csrf} action={path} form={form} submit="Save changes" cancel={path} />
      </section>
    </>,
    SCRIPTS,
  );
}
