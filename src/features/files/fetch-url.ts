import http from 'node:http';
import https from 'node:https';
import { ApiError } from '../../errors.js';
import { agentFor, type OutboundAgents } from '../../lib/outbound.js';

/** How files/from-url fetches (DECISIONS.md "Files"): every hop is checked, redirects are counted. */
export interface FetchOptions {
  agents: OutboundAgents;
  /** A reason to refuse the URL's host (private, loopback, link-local), or undefined. */
  refuseHost(url: URL): Promise<string | undefined>;
  maxRedirects: number;
  /** For the whole fetch, body included. */
  timeoutMs: number;
}

export interface FetchedResponse {
  url: URL;
  response: http.IncomingMessage;
  /** Ends the fetch early (aborts the request and its timer). */
  abort(): void;
  /** Called when the body has been read; clears the timer. */
  done(): void;
  /** True once the time limit ended the fetch. */
  timedOut(): boolean;
}

export const invalidUrl = (message: string) => new ApiError('invalid_url', message);

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function parseHttpUrl(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw invalidUrl(base ? 'The URL redirected to an address that is not a URL' : 'url is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidUrl(base ? 'The URL redirected to an address that is not http or https' : 'url must be an http or https URL');
  }
  if (url.username || url.password) throw invalidUrl('url must not contain credentials');
  return url;
}

/** The SSRF agent refuses private addresses at connect time (DNS rebinding included). */
function describeNetworkError(error: Error & { code?: string }, url: URL): ApiError {
  if (/is not allowed|private|reserved/i.test(error.message)) {
    return invalidUrl(`${url.host} resolves to a private or reserved address, which is not allowed`);
  }
  if (error.name === 'AbortError' || error.code === 'ABORT_ERR') return invalidUrl('The URL did not answer in time');
  return invalidUrl(`The URL could not be fetched (${error.code ?? 'network error'})`);
}

/**
 * GETs `raw`, following at most `maxRedirects` redirects, each target checked again; resolves
 * with the 2xx response whose body the caller reads. Anything else → 400 invalid_url.
 */
export async function fetchUrl(raw: string, options: FetchOptions): Promise<FetchedResponse> {
  let url = parseHttpUrl(raw);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const fail = (error: unknown): never => {
    clearTimeout(timer);
    controller.abort();
    if (timedOut) throw invalidUrl(`The URL did not answer within ${Math.round(options.timeoutMs / 1000)} s`);
    throw error instanceof ApiError ? error : describeNetworkError(error as Error, url);
  };
  try {
    for (let redirects = 0; ; redirects++) {
      const refused = await options.refuseHost(url);
      if (refused) throw invalidUrl(`url is not allowed: ${refused}`);
      const response = await get(url, options.agents, controller.signal);
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode ?? 0) && location) {
        response.resume();
        if (redirects >= options.maxRedirects) throw invalidUrl(`The URL redirected more than ${options.maxRedirects} times`);
        url = parseHttpUrl(location, url);
        continue;
      }
      if (!response.statusCode || response.statusCode < 200 || response.statusCode > 299) {
        response.resume();
        throw invalidUrl(`The URL answered with HTTP status ${response.statusCode ?? 'unknown'}`);
      }
      response.once('error', () => undefined);
      const finalUrl = url;
      return {
        url: finalUrl,
        response,
        abort: () => {
          clearTimeout(timer);
          controller.abort();
        },
        done: () => clearTimeout(timer),
        timedOut: () => timedOut,
      };
    }
  } catch (error) {
    return fail(error);
  }
}

/** Errors of a body read, mapped like the request's own. */
export function bodyError(error: unknown, fetched: FetchedResponse, timeoutMs: number): unknown {
  if (error instanceof ApiError) return error;
  if (fetched.timedOut()) return invalidUrl(`The URL did not deliver its content within ${Math.round(timeoutMs / 1000)} s`);
  return describeNetworkError(error as Error, fetched.url);
}

function get(url: URL, agents: OutboundAgents, signal: AbortSignal): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(url, {
      agent: agentFor(agents, url),
      signal,
      headers: { 'user-agent': 'tagsvc (files/from-url)', accept: '*/*', 'accept-encoding': 'identity' },
    });
    request.once('response', resolve);
    request.once('error', reject);
  });
}
