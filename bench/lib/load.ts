import autocannon from 'autocannon';
import type { CapturedResponse } from './baseline.js';

/** One HTTP request that a scenario wants repeated as fast as possible. */
export interface LoadRequest {
  method: NonNullable<autocannon.Options['method']>;
  /** Path and query, e.g. `/v1/me`. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** One load run against one server. */
export interface RunStats {
  requestsPerSecond: number;
  totalRequests: number;
  /** Answers that are neither 2xx nor 3xx (a redirect is a success), as wrk counts them. */
  non2xx: number;
  /** Responses per status code, e.g. { "200": 91234 }. */
  statusCodes: Record<string, number>;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  durationSeconds: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** CPU the measured processes used during the run (utime + stime), in seconds. */
  cpuSeconds: number;
}

/** Every measured run against one server, slices combined. */
export interface LoadSummary extends Omit<RunStats, 'latencyP50Ms' | 'latencyP99Ms'> {
  /** The median of the slices' medians. */
  latencyP50Ms: number;
  /** The worst slice's 99th percentile. */
  latencyP99Ms: number;
  /** The measured processes' CPU per request, in microseconds. */
  cpuMicrosPerRequest: number;
  /** req/s of each slice, to judge how noisy the machine was. */
  roundsRequestsPerSecond: number[];
  /** CPU µs per request of each slice. */
  roundsCpuMicrosPerRequest: number[];
}

/** Collects the measured runs against one server. */
export class Measurement {
  private readonly runs: RunStats[] = [];

  addRun(run: RunStats): void {
    this.runs.push(run);
  }

  summary(): LoadSummary {
    const sum = (pick: (run: RunStats) => number) => this.runs.reduce((total, run) => total + pick(run), 0);
    const rounds = this.runs.map((run) => run.requestsPerSecond);
    const medians = this.runs.map((run) => run.latencyP50Ms).sort((a, b) => a - b);
    return {
      // Weighted by duration (a side's last slice may be shorter): the mean over all seconds.
      requestsPerSecond:
        sum((run) => run.requestsPerSecond * run.durationSeconds) /
        Math.max(
          1e-9,
          sum((run) => run.durationSeconds),
        ),
      latencyP50Ms: medians[Math.floor(medians.length / 2)] ?? Number.NaN,
      latencyP99Ms: Math.max(...this.runs.map((run) => run.latencyP99Ms)),
      cpuSeconds: sum((run) => run.cpuSeconds),
      cpuMicrosPerRequest:
        (sum((run) => run.cpuSeconds) /
          Math.max(
            1,
            sum((run) => run.totalRequests),
          )) *
        1e6,
      totalRequests: sum((run) => run.totalRequests),
      non2xx: sum((run) => run.non2xx),
      statusCodes: mergeCounts(this.runs.map((run) => run.statusCodes)),
      errors: sum((run) => run.errors),
      timeouts: sum((run) => run.timeouts),
      durationSeconds: sum((run) => run.durationSeconds),
      roundsRequestsPerSecond: rounds,
      roundsCpuMicrosPerRequest: this.runs.map((run) => (run.cpuSeconds / Math.max(1, run.totalRequests)) * 1e6),
    };
  }
}

function mergeCounts(counts: Record<string, number>[]): Record<string, number> {
  const merged: Record<string, number> = {};
  for (const count of counts) for (const [key, n] of Object.entries(count)) merged[key] = (merged[key] ?? 0) + n;
  return merged;
}

/**
 * Sends exactly `amount` requests over `connections` connections and waits for every answer, so
 * the counts a scenario's checks compare are exact (a timed run cuts off the requests in flight
 * at its end). autocannon, unlike wrk, can stop after a number of requests.
 */
export async function sendRequests(baseUrl: string, request: LoadRequest, amount: number, connections: number): Promise<RunStats> {
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      {
        url: new URL(request.path, baseUrl).toString(),
        method: request.method,
        headers: request.headers,
        body: request.body,
        connections,
        amount,
      },
      (error: unknown, done) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(done)),
    );
  });
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, stat.count ?? 0]));
  return {
    requestsPerSecond: result.requests.mean,
    totalRequests: result.requests.total,
    // autocannon's own non2xx counts redirects too.
    non2xx: Object.entries(statusCodes).reduce((sum, [code, count]) => (/^[23]\d\d$/.test(code) ? sum : sum + count), 0),
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSeconds: result.duration,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    cpuSeconds: 0,
  };
}

/**
 * Sends `request` once and keeps the exact response, which the baseline will then replay. A
 * redirect is the response, never followed.
 */
export async function captureResponse(baseUrl: string, request: LoadRequest): Promise<CapturedResponse> {
  const response = await fetch(new URL(request.path, baseUrl), {
    method: request.method,
    redirect: 'manual',
    headers: request.headers,
    // A copy as a plain Uint8Array: with DOM types in the program (preact's JSX), a Buffer is not a BodyInit.
    body: typeof request.body === 'string' || request.body === undefined ? request.body : Uint8Array.from(request.body),
    signal: AbortSignal.timeout(10_000),
  });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status >= 400) {
    throw new Error(`${request.method} ${request.path} answered ${response.status} before the run: ${body.toString('utf8').slice(0, 500)}`);
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return { status: response.status, contentType: headers['content-type'] ?? 'application/octet-stream', headers, body };
}

/** Throws when a run saw anything but 2xx or 3xx answers: req/s of error responses mean nothing. */
export function assertAllSucceeded(label: string, summary: RunStats): void {
  const problems = [
    summary.non2xx > 0 ? `${summary.non2xx} non-2xx responses (by status: ${JSON.stringify(summary.statusCodes)})` : '',
    summary.errors > 0 ? `${summary.errors} connection errors` : '',
    summary.timeouts > 0 ? `${summary.timeouts} timeouts` : '',
    summary.totalRequests === 0 ? 'no completed requests' : '',
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`${label}: ${problems.join(', ')} out of ${summary.totalRequests} requests`);
}
