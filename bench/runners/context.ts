import type { ScenarioContext } from '../lib/scenario.js';
import type { Service } from '../lib/service.js';
import type { Services } from '../lib/services.js';
import type { VariantContext } from '../lib/variant-context.js';

/** What every runner needs from the run. */
export interface RunContext extends VariantContext {
  services: Services;
}

export function scenarioContext(run: RunContext, service: Service): ScenarioContext {
  const { services: _services, ...variantContext } = run;
  return { baseUrl: service.baseUrl, service, createAccount: (plan) => run.data.createAccount(plan), run: variantContext };
}
