import { readFileSync } from 'node:fs';
import { percentile } from './metrics.js';

const MB = 1_048_576;

/** Resident set size of a process in MB, from /proc/<pid>/status (Linux only). */
export function rssMb(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return (Number(match[1]) * 1024) / MB;
}

export interface RssReport {
  /** Median of the samples taken just before the measured work. */
  beforeMb: number;
  peakMb: number;
  /** peak − before: what the work made the process hold at its worst. */
  growthMb: number;
  samples: number;
}

/**
 * Samples a process's RSS every `intervalMs` while work runs in it. The baseline is a median
 * of a few samples before, so one stray allocation does not set it.
 */
export class RssSampler {
  private peak: number;
  private samples = 0;
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly pid: number,
    readonly beforeMb: number,
    intervalMs: number,
  ) {
    this.peak = beforeMb;
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  static async start(pid: number, intervalMs = 50): Promise<RssSampler> {
    const before: number[] = [];
    for (let i = 0; i < 5; i++) {
      before.push(rssMb(pid));
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
    return new RssSampler(pid, percentile(before, 50), intervalMs);
  }

  private sample(): void {
    this.peak = Math.max(this.peak, rssMb(this.pid));
    this.samples++;
  }

  stop(): RssReport {
    clearInterval(this.timer);
    this.sample();
    return { beforeMb: this.beforeMb, peakMb: this.peak, growthMb: this.peak - this.beforeMb, samples: this.samples };
  }
}
