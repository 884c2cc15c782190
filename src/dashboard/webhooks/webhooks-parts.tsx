import type { getDelivery, getWebhook, listDeliveries, listWebhooks } from '../../features/webhooks/index.js';

/** What the webhooks service answers, as the pages read it. */
export type WebhookSummary = Awaited<ReturnType<typeof listWebhooks>>['webhooks'][number];
export type WebhookDetail = Awaited<ReturnType<typeof getWebhook>>;
export type DeliverySummary = Awaited<ReturnType<typeof listDeliveries>>['deliveries'][number];
export type DeliveryDetail = Awaited<ReturnType<typeof getDelivery>>;
export type DeliveryStatus = DeliverySummary['status'];

/** The delivery statuses in filter order, with the words the pages use for them. */
export const DELIVERY_STATUSES: ReadonlyArray<{ status: DeliveryStatus; label: string }> = [
  { status: 'success', label: 'Succeeded' },
  { status: 'failed', label: 'Failed' },
  { status: 'pending', label: 'Pending' },
];

export function isDeliveryStatus(value: string | undefined): value is DeliveryStatus {
  return DELIVERY_STATUSES.some((item) => item.status === value);
}

/** The address of a webhook's page, or of one of its pages below it. */
export function webhookPath(id: string, ...rest: string[]): string {
  return ['/dashboard/webhooks', encodeURIComponent(id), ...rest.map(encodeURIComponent)].join('/');
}

/** A delivery's status as a coloured pill (its word, never colour alone). */
export function DeliveryStatusBadge({ status }: { status: DeliveryStatus }) {
  const label = DELIVERY_STATUSES.find((item) => item.status === status)!.label;
  return <span class={`status status-${status}`}>{label}</span>;
}

/** Milliseconds as `35 ms` or `1.2 s`; nothing measured yet as a dash. */
export function Duration({ ms }: { ms: number | null }) {
  if (ms === null) return <span class="muted">—</span>;
  return <>{ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`}</>;
}

/** The receiver's status code, or a dash when it never answered. */
export function ResponseCode({ code }: { code: number | null }) {
  if (code === null) return <span class="muted">No answer</span>;
  return <code class={code >= 200 && code < 300 ? 'http-code http-ok' : 'http-code http-bad'}>{code}</code>;
}
