import type { Scenario } from '../lib/scenario.js';
import { me } from './me.js';

/**
 * Every scenario, in the order they run. A new one is a module in this folder exporting a
 * Scenario, appended here; BENCH_ONLY=<name>[,<name>] runs a subset.
 */
export const scenarios: Scenario[] = [me];
