import autocannon from 'autocannon';
import { createHistogram } from 'node:perf_hooks';
import type { CapturedResponse } from './baseline.js';

/** One HTTP request that a scenario wants repeated as fast as possible. */
export interface LoadRequest {
  method: NonNullable<autocannon.Options['method']>;
  /** Path and query, e.g. `/v1/me`. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /**
   * Extra autocannon options for what the fields above cannot say (e.g. `requests` to rotate
   * through several ids). Applied to the baseline and the service alike.
   */
  extra?: Partial<autocannon.Options>;
}

/** One autocannon run. */
export interface RunStats {
  /** Mean of autocannon's per-second request counts. */
  requestsPerSecond: number;
  totalRequests: number;
  non2xx: number;
  /** Responses per status code, e.g. { "200": 91234 }. */
  statusCodes: Record<string, number>;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  durationSeconds: number;
}

/** Every measured run against one server, rounds combined. */
export interface LoadSummary extends RunStats {
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMeanMs: number;
  /** req/s of each round, to judge how noisy the machine was. */
  roundsRequestsPerSecond: number[];
}

export interface LoadOptions {
  connections: number;
  durationSeconds: number;
}

/**
 * Collects the measured runs against one server. Latencies go into one histogram across rounds
 * so percentiles are of all requests, not an average of per-round percentiles.
 */
export class Measurement {
  private readonly latencyUs = createHistogram();
  private readonly runs: RunStats[] = [];

  recordLatency(ms: number): void {
    this.latencyUs.record(Math.max(1, Math.round(ms * 1000)));
  }

  addRun(run: RunStats): void {
    this.runs.push(run);
  }

  summary(): LoadSummary {
    const sum = (pick: (run: RunStats) => number) => this.runs.reduce((total, run) => total + pick(run), 0);
    const rounds = this.runs.map((run) => run.requestsPerSecond);
    return {
      // Weighted by duration (a side's last slice may be shorter): the mean over all seconds.
      requestsPerSecond:
        sum((run) => run.requestsPerSecond * run.durationSeconds) /
        Math.max(
          1e-9,
          sum((run) => run.durationSeconds),
        ),
      latencyP50Ms: this.latencyUs.percentile(50) / 1000,
      latencyP99Ms: this.latencyUs.percentile(99) / 1000,
      latencyMeanMs: this.latencyUs.mean / 1000,
      totalRequests: sum((run) => run.totalRequests),
      non2xx: sum((run) => run.non2xx),
      statusCodes: mergeCounts(this.runs.map((run) => run.statusCodes)),
      errors: sum((run) => run.errors),
      timeouts: sum((run) => run.timeouts),
      durationSeconds: sum((run) => run.durationSeconds),
      roundsRequestsPerSecond: rounds,
    };
  }
}

function mergeCounts(counts: Record<string, number>[]): Record<string, number> {
  const merged: Record<string, number> = {};
  for (const count of counts) for (const [key, n] of Object.entries(count)) merged[key] = (merged[key] ?? 0) + n;
  return merged;
}

/**
 * Drives `baseUrl` with autocannon's programmatic API from this process. Both servers are
 * measured by the same client with the same options, so client overhead cancels out in the ratio.
 * Without `into` (a warm-up) the run is not recorded.
 */
export async function generateLoad(baseUrl: string, request: LoadRequest, options: LoadOptions, into?: Measurement): Promise<RunStats> {
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: new URL(request.path, baseUrl).toString(),
        method: request.method,
        headers: request.headers,
        body: request.body,
        connections: options.connections,
        duration: options.durationSeconds,
        ...request.extra,
      },
      (error: unknown, done) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(done)),
    );
    // autocannon's own latency histogram keeps whole milliseconds, which reads 0 or 1 ms for
    // both servers here; its per-response event carries the sub-millisecond time.
    if (into) instance.on('response', (_client, _status, _bytes, ms) => into.recordLatency(ms));
  });
  const run: RunStats = {
    requestsPerSecond: result.requests.mean,
    totalRequests: result.requests.total,
    non2xx: result.non2xx,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, stat.count ?? 0])),
    errors: result.errors,
    timeouts: result.timeouts,
    durationSeconds: result.duration,
  };
  into?.addRun(run);
  return run;
}

/** Sends `request` once and keeps the exact response, which the baseline will then replay. */
export async function captureResponse(baseUrl: string, request: LoadRequest): Promise<CapturedResponse> {
  const response = await fetch(new URL(request.path, baseUrl), {
    method: request.method,
    headers: request.headers,
    // A copy as a plain Uint8Array: with DOM types in the program (preact's JSX), a Buffer is not a BodyInit.
    body: typeof request.body === 'string' || request.body === undefined ? request.body : Uint8Array.from(request.body),
    signal: AbortSignal.timeout(10_000),
  });
  const body = Buffer.from(await response.arrayBuffer());
  if (!response.ok) {
    throw new Error(`${request.method} ${request.path} answered ${response.status} before the run: ${body.toString('utf8').slice(0, 500)}`);
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return { status: response.status, contentType: headers['content-type'] ?? 'application/octet-stream', headers, body };
}

/** Throws when a run saw anything but 2xx answers: req/s of error responses mean nothing. */
export function assertAllSucceeded(label: string, summary: RunStats): void {
  const problems = [
    summary.non2xx > 0 ? `${summary.non2xx} non-2xx responses (by status: ${JSON.stringify(summary.statusCodes)})` : '',
    summary.errors > 0 ? `${summary.errors} connection errors` : '',
    summary.timeouts > 0 ? `${summary.timeouts} timeouts` : '',
    summary.totalRequests === 0 ? 'no completed requests' : '',
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`${label}: ${problems.join(', ')} out of ${summary.totalRequests} requests`);
}
