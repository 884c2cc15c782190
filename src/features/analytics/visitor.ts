import { createHmac, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import UAParser from 'ua-parser-js';
import type { DeviceType } from '../../db/schema.js';

/** Crawlers, previewers and HTTP libraries: their requests are served but not counted. */
const BOT =
  /bot|crawl|spider|slurp|scrap|fetch|preview|monitor|curl|wget|httpie|python-requests|python-urllib|aiohttp|go-http-client|java\/|okhttp|axios|node-fetch|undici|headless|phantomjs|lighthouse|pingdom|uptime|facebookexternalhit|embedly|whatsapp|telegram|discord|slack/i;

export function isBot(userAgent: string | undefined): boolean {
  return !userAgent || BOT.test(userAgent);
}

export interface ClientDescription {
  device: DeviceType;
  browser: string;
  os: string;
}

// Parsing runs dozens of regular expressions; real traffic repeats a small set of agents.
const described = new LRUCache<string, ClientDescription>({ max: 5000 });

export function describeClient(userAgent: string): ClientDescription {
  let description = described.get(userAgent);
  if (!description) {
    description = parse(userAgent);
    described.set(userAgent, description);
  }
  return description;
}

function parse(userAgent: string): ClientDescription {
  const result = new UAParser(userAgent).getResult();
  const type = result.device.type;
  const device: DeviceType = type === 'mobile' || type === 'wearable' ? 'mobile' : type === 'tablet' ? 'tablet' : 'desktop';
  return { device, browser: result.browser.name ?? 'Other', os: result.os.name ?? 'Other' };
}

export const VISITOR_COOKIE = 'tsv';
const COOKIE_PATTERN = new RegExp(`(?:^|;\\s*)${VISITOR_COOKIE}=([A-Za-z0-9_-]{16,64})`);

export function visitorFromCookie(cookieHeader: string | undefined): string | undefined {
  return cookieHeader ? COOKIE_PATTERN.exec(cookieHeader)?.[1] : undefined;
}

/**
 * Without a cookie, the visitor is an HMAC of address and user agent under the server secret:
 * stable for a returning browser, unlinkable to the address without the secret. The page then
 * sets that same id as the cookie, so the visitor keeps one id.
 */
export function anonymousVisitor(secret: string, address: string, userAgent: string): string {
  return createHmac('sha256', secret).update(`${address}\n${userAgent}`).digest('base64url').slice(0, 32);
}

/**
 * anonymousVisitor's answers, the last ones kept in memory (never written anywhere): clients
 * that send no cookie (privacy modes, apps' web views) come back with the same address and
 * agent, and a look-up costs a fifth of an HMAC.
 */
export class AnonymousVisitors {
  private readonly known = new LRUCache<string, string>({ max: 10_000 });

  constructor(private readonly secret: string) {}

  of(address: string, userAgent: string): string {
    const client = `${address}\n${userAgent}`;
    let visitor = this.known.get(client);
    if (visitor === undefined) {
      visitor = anonymousVisitor(this.secret, address, userAgent);
      this.known.set(client, visitor);
    }
    return visitor;
  }
}

export function newVisitorId(): string {
  return randomBytes(18).toString('base64url');
}
