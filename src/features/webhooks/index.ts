/** Webhooks and their deliveries: what other features, the worker and the front doors may use. */
export { DeliveryWorker } from './delivery-worker.js';
export { resealWebhookSecrets, sealPlaintextWebhookSecrets } from './secret-sealing.js';
export * from './webhooks.service.js';
