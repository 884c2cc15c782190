import type { SignedInUser } from '../../features/accounts/index.js';
import { ActionButton, Alert, CopyButton } from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import { DataTable, When } from '../components/table.js';
import { DeliveryStatusBadge, Duration, ResponseCode, webhookPath, type DeliveryDetail } from './webhooks-parts.js';

export interface DeliveryPage {
  webhook: { id: string; name: string };
  delivery: DeliveryDetail;
  notice?: string;
  /** Why a Retry was not made (another one was under way). */
  problem?: string;
}

type Attempt = DeliveryDetail['attempts'][number];

function Fact({ label, children }: { label: string; children: preact.ComponentChildren }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function Summary({ delivery }: { delivery: DeliveryDetail }) {
  return (
    <dl class="facts">
      <Fact label="Status">
        <DeliveryStatusBadge status={delivery.status} />
      </Fact>
      <Fact label="Response code">
        <ResponseCode code={delivery.response_code} />
      </Fact>
      <Fact label="Response time">
        <Duration ms={delivery.response_time_ms} />
      </Fact>
      <Fact label="Attempts">{delivery.attempt}</Fact>
      <Fact label="Created">
        <When at={delivery.created_at} />
      </Fact>
      <Fact label="Last attempt">
        <When at={delivery.delivered_at} />
      </Fact>
      {delivery.next_attempt_at && delivery.status === 'pending' && (
        <Fact label="Next attempt">
          <When at={delivery.next_attempt_at} />
        </Fact>
      )}
      <Fact label="Delivery id">
        <code>{delivery.id}</code>
      </Fact>
    </dl>
  );
}

function AttemptRow({ attempt }: { attempt: Attempt }) {
  return (
    <tr>
      <th scope="row" data-label="Attempt">
        {attempt.attempt}
      </th>
      <td data-label="Time">
        <When at={attempt.timestamp} />
      </td>
      <td data-label="Response">
        <ResponseCode code={attempt.response_code} />
      </td>
      <td data-label="Duration">
        <Duration ms={attempt.response_time_ms} />
      </td>
      <td data-label="Answer" class="cell-wide">
        {attempt.error && <p class="attempt-error">{attempt.error}</p>}
        {attempt.response_body ? <pre class="excerpt">{attempt.response_body}</pre> : !attempt.error && <span class="muted">Empty</span>}
      </td>
    </tr>
  );
}

/** /dashboard/webhooks/{id}/deliveries/{deliveryId}: one delivery, its payload and every attempt. */
export function renderDelivery(context: PageContext & { user: SignedInUser }, page: DeliveryPage): string {
  const { webhook, delivery } = page;
  return renderAppPage(
    context,
    `${delivery.event} delivery`,
    <>
      <p class="breadcrumb">
        <a href="/dashboard/webhooks">Webhooks</a> / <a href={`${webhookPath(webhook.id)}#deliveries`}>{webhook.name}</a>
      </p>
      <div class="page-head">
        <div>
          <h1>
            <code>{delivery.event}</code> delivery {delivery.test && <span class="badge badge-test">test</span>}
          </h1>
        </div>
        {delivery.status === 'failed' && (
          <div class="row-actions retry">
            <ActionButton csrf={context.csrf} action={webhookPath(webhook.id, 'deliveries', delivery.id, 'retry')} label="Retry" />
          </div>
        )}
      </div>
      {page.notice && <Alert kind="success">{page.notice}</Alert>}
      {page.problem && <Alert kind="error">{page.problem}</Alert>}
      <div class="grid grid-wide-first">
        <section class="card" aria-labelledby="payload-heading">
          <h2 id="payload-heading">Payload</h2>
          <div class="code payload-code">
            <pre id="delivery-payload" class="payload" tabindex={0}>
              <code>{JSON.stringify(delivery.payload, null, 2)}</code>
            </pre>
            <CopyButton target="delivery-payload" />
          </div>
        </section>
        <section class="card" aria-labelledby="summary-heading">
          <h2 id="summary-heading">Summary</h2>
          <Summary delivery={delivery} />
        </section>
      </div>
      <section class="card" aria-labelledby="attempts-heading">
        <h2 id="attempts-heading">Attempts</h2>
        {delivery.attempts.length === 0 ? (
          <p class="muted">Not attempted yet: it is queued.</p>
        ) : (
          <DataTable label="Attempts" headings={['Attempt', 'Time', 'Response', 'Duration', 'Answer']}>
            {delivery.attempts.map((attempt) => (
              <AttemptRow key={attempt.attempt} attempt={attempt} />
            ))}
          </DataTable>
        )}
      </section>
    </>,
  );
}
