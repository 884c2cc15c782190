import type pino from 'pino';
import { buildApp, buildWorkerApp } from './app.js';
import type { Config } from './config.js';
import { parseIp } from './lib/ip.js';
import { createServices } from './services.js';
import { startWorker } from './worker.js';

/** Stops cleanly on SIGTERM/SIGINT: no new connections, in-flight requests finish, then the database closes. */
function onShutdownSignal(stop: () => Promise<void>, log: pino.Logger): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    stop()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}

const isLoopback = (host: string) => host === 'localhost' || parseIp(host.replace(/^\[|\]$/g, ''))?.range() === 'loopback';

/**
 * Listening beyond loopback while PUBLIC_BASE_URL still points at localhost (its default when
 * unset) hands other machines tag links, short links and QR codes they cannot open: said once,
 * at start-up, in plain words.
 */
function warnIfLinksPointAtLocalhost(config: Config, log: pino.Logger): void {
  if (isLoopback(config.host) || !isLoopback(new URL(config.publicBaseUrl).hostname)) return;
  log.warn(
    `HOST=${config.host} accepts connections from other machines, but PUBLIC_BASE_URL is ${config.publicBaseUrl} ` +
      '(the default when it is unset): tag links, short links and QR codes will point at localhost. ' +
      'Set PUBLIC_BASE_URL to the address people reach this server at.',
  );
}

/** `tagsvc serve`: the HTTP API, public pages and (unless disabled) the worker in one process. */
export async function serve(config: Config, options: { worker: boolean }): Promise<void> {
  const services = await createServices(config);
  const app = await buildApp(services);
  await app.listen({ port: config.port, host: config.host });
  warnIfLinksPointAtLocalhost(config, services.log as pino.Logger);
  const stopWorker = options.worker ? startWorker(services) : undefined;
  onShutdownSignal(async () => {
    await app.close();
    await stopWorker?.();
    await services.close();
  }, services.log as pino.Logger);
}

/** `tagsvc worker`: only the background work, for deployments that scale it separately. */
export async function work(config: Config): Promise<void> {
  const services = await createServices(config);
  // With METRICS_TOKEN, the worker serves its own /metrics on HOST:PORT, as web processes do.
  const metricsApp = services.metrics ? buildWorkerApp(services) : undefined;
  await metricsApp?.listen({ port: config.port, host: config.host });
  const stopWorker = startWorker(services);
  onShutdownSignal(async () => {
    await metricsApp?.close();
    await stopWorker();
    await services.close();
  }, services.log as pino.Logger);
}
