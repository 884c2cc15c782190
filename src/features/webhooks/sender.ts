import http from 'node:http';
import https from 'node:https';
import { agentFor, type OutboundAgents } from '../../lib/outbound.js';

export interface SendResult {
  /** The receiver's status code; null when no answer came (timeout, refused, blocked). */
  responseCode: number | null;
  responseTimeMs: number;
  /** The first 1 KB of the answer, for the delivery log. */
  responseBody: string | null;
  error: string | null;
  ok: boolean;
}

const BODY_KEPT = 1024;

/**
 * One POST to a receiver: JSON, redirects not followed (node:http(s) never follows them), the
 * whole exchange bounded by `timeoutMs`, the address checked by the outbound agents. Plain
 * http:// only reaches here for local receivers allowed by ALLOW_PRIVATE_NETWORKS.
 */
export function postJson(
  agents: OutboundAgents,
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'responseTimeMs' | 'ok'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const ok = result.responseCode !== null && result.responseCode >= 200 && result.responseCode < 300;
      resolve({ ...result, responseTimeMs: elapsed(), ok });
    };
    const target = new URL(url);
    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'POST',
      agent: agentFor(agents, target),
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    });
    const timer = setTimeout(() => {
      finish({ responseCode: null, responseBody: null, error: `no answer within ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      response.on('data', (chunk: Buffer) => {
        if (kept < BODY_KEPT) {
          chunks.push(chunk);
          kept += chunk.length;
        }
      });
      const done = () =>
        finish({
          responseCode: response.statusCode ?? null,
          responseBody: Buffer.concat(chunks).subarray(0, BODY_KEPT).toString('utf8'),
          error: null,
        });
      response.on('end', done);
      response.on('error', done);
    });
    request.on('error', (error) => finish({ responseCode: null, responseBody: null, error: error.message }));
    request.end(body);
  });
}
