import { join } from 'node:path';
import type { BenchData } from './data.js';
import { startService, type Service } from './service.js';
import type { BenchSettings } from './settings.js';
import { describeVariant, VARIANTS, type VariantName } from './variants.js';

/**
 * The service variants of a run, each started the first time a scenario asks for it and kept
 * for the scenarios after it (restarting per scenario would measure a cold process).
 */
export class Services {
  private readonly running = new Map<VariantName, Promise<Service>>();

  constructor(
    private readonly options: { root: string; workDir: string; settings: BenchSettings; data: BenchData; progress(message: string): void },
  ) {}

  get(variant: VariantName): Promise<Service> {
    let service = this.running.get(variant);
    if (!service) {
      service = this.start(variant);
      this.running.set(variant, service);
    }
    return service;
  }

  /** The variants started so far, in start order. */
  started(): VariantName[] {
    return [...this.running.keys()];
  }

  /** Log file of each variant started, whether or not it came up (its log says why not). */
  logFiles(): Map<VariantName, string> {
    return new Map(this.started().map((variant) => [variant, this.logFile(variant)]));
  }

  async closeAll(): Promise<void> {
    const services = await Promise.allSettled(this.running.values());
    await Promise.all(services.map((s) => (s.status === 'fulfilled' ? s.value.close() : undefined)));
  }

  private logFile(variant: VariantName): string {
    return join(this.options.workDir, `service.${variant}.log`);
  }

  private async start(variant: VariantName): Promise<Service> {
    const { root, settings, data, progress } = this.options;
    const service = await startService({
      root,
      name: `tagsvc serve (${variant})`,
      env: { ...data.env, LOG_LEVEL: settings.logLevel, ...VARIANTS[variant].env(settings) },
      logFile: this.logFile(variant),
    });
    const env = Object.entries(describeVariant(variant, settings)).map(([key, value]) => `${key}=${value}`);
    progress(`  started tagsvc ${variant} on ${service.baseUrl} (${env.join(' ')})`);
    return service;
  }
}
