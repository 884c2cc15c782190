import type { Pinning } from './cpu.js';
import type { BenchData } from './data.js';
import type { BenchSettings } from './settings.js';

/** What a service variant is prepared with (variants.ts), and what its data set needs. */
export interface VariantContext {
  root: string;
  /** Scratch directory of the run. */
  workDir: string;
  settings: BenchSettings;
  data: BenchData;
  /** Cores the servers and the load generator run on; null: not pinned. */
  pinning: Pinning | null;
}
