import { join } from 'node:path';
import { startService, type Service } from './service.js';
import type { VariantContext } from './variant-context.js';
import { describeVariant, variant, type VariantName } from './variants.js';

/**
 * The service variants of a run, each started the first time a scenario asks for it and kept
 * for the scenarios after it (restarting per scenario would measure a cold process).
 */
export class Services {
  private readonly running = new Map<VariantName, Promise<Service>>();

  constructor(private readonly options: VariantContext & { progress(message: string): void }) {}

  get(name: VariantName): Promise<Service> {
    let service = this.running.get(name);
    if (!service) {
      service = this.start(name);
      this.running.set(name, service);
    }
    return service;
  }

  /** The variants started so far, in start order. */
  started(): VariantName[] {
    return [...this.running.keys()];
  }

  /** Log file of each variant started, whether or not it came up (its log says why not). */
  logFiles(): Map<VariantName, string> {
    return new Map(this.started().map((name) => [name, this.logFile(name)]));
  }

  async closeAll(): Promise<void> {
    const services = await Promise.allSettled(this.running.values());
    await Promise.all(services.map((s) => (s.status === 'fulfilled' ? s.value.close() : undefined)));
  }

  private logFile(name: VariantName): string {
    return join(this.options.workDir, `service.${name}.log`);
  }

  private async start(name: VariantName): Promise<Service> {
    const { progress, ...context } = this.options;
    const definition = variant(name);
    await definition.prepare?.(context);
    const service = await startService({
      root: context.root,
      name: `tagsvc serve (${name})`,
      env: { ...context.data.env, LOG_LEVEL: context.settings.logLevel, ...definition.env(context) },
      logFile: this.logFile(name),
      worker: definition.worker,
      core: context.pinning?.server,
      databaseUrl: context.settings.databaseUrl,
    });
    const env = Object.entries(describeVariant(name, context)).map(([key, value]) => `${key}=${value}`);
    progress(
      `  started tagsvc ${name}${definition.worker ? ' with its worker' : ''} on ${service.baseUrl}, pid ${service.pid} (${env.join(' ')})`,
    );
    return service;
  }
}
