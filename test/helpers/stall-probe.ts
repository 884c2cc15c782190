import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

/**
 * How late a 10 ms timer fires on this thread from now until stop(): the longest the thread
 * could not answer anything. Servers under test run in the test's process, so a timer here
 * sees what any other request to them would. The garbage collector's pauses are recorded
 * beside it, so a stall says whether collecting garbage took that time.
 */
export function stallProbe() {
  let worst = 0;
  let lap = 0;
  let lapGc: { ms: number; kind: string } | undefined;
  let expected = performance.now() + 10;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - expected);
    lap = Math.max(lap, now - expected);
    expected = now + 10;
  }, 10);
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as Array<PerformanceEntry & { detail?: { kind?: number } }>) {
      if (!lapGc || entry.duration > lapGc.ms) lapGc = { ms: entry.duration, kind: GC_KINDS[entry.detail?.kind ?? -1] ?? 'other' };
    }
  });
  gc.observe({ entryTypes: ['gc'] });
  return {
    /** The worst lateness since the previous lap, and the longest garbage collection in it. */
    lap(): { ms: number; text: string } {
      const value = { ms: lap, text: `${lap.toFixed(0)} ms${lapGc ? ` (longest GC ${lapGc.ms.toFixed(0)} ms, ${lapGc.kind})` : ''}` };
      lap = 0;
      lapGc = undefined;
      return value;
    },
    /** Stops the timer; the worst lateness since the start, in ms. */
    stop() {
      clearInterval(timer);
      gc.disconnect();
      return worst;
    },
  };
}
