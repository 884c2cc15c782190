import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import type { Config } from '../config.js';
import { parseIp } from './ip.js';

/**
 * Every request the service makes on a user's behalf (webhook deliveries, files/from-url) goes
 * through these agents. They check the address each connection actually resolves to, so a
 * hostname cannot point at private, loopback or link-local addresses — not at creation, not
 * after a DNS change (rebinding), not through a redirect. ALLOW_PRIVATE_NETWORKS=true lifts
 * the check for tests and on-premise receivers.
 */
export interface OutboundAgents {
  http: http.Agent;
  https: https.Agent;
  allowPrivateNetworks: boolean;
}

export function createOutboundAgents(config: Pick<Config, 'allowPrivateNetworks' | 'outboundCaFile'>): OutboundAgents {
  const allowPrivateNetworks = config.allowPrivateNetworks;
  const options = { keepAlive: true, maxSockets: 64, allowPrivateIPAddress: allowPrivateNetworks, allowMetaIPAddress: false };
  // OUTBOUND_CA_FILE adds trusted roots (a private CA, a test receiver); NODE_EXTRA_CA_CERTS works too.
  // The trust store is built once: passing `ca` per connection would re-parse every root
  // certificate on each TLS handshake, on the event loop.
  const secureContext = config.outboundCaFile
    ? tls.createSecureContext({ ca: [...tls.rootCertificates, readFileSync(config.outboundCaFile, 'utf8')] })
    : undefined;
  return {
    http: new RequestFilteringHttpAgent(options),
    https: new RequestFilteringHttpsAgent({ ...options, ...(secureContext ? { secureContext } : {}) }),
    allowPrivateNetworks,
  };
}

export function agentFor(agents: OutboundAgents, url: URL): http.Agent {
  return url.protocol === 'https:' ? agents.https : agents.http;
}

/**
 * True when `address` is a public unicast address (ipaddr.js ranges). ipaddr.js counts ::/96
 * as unicast, but those "IPv4-compatible" addresses (deprecated by RFC 4291) embed an IPv4
 * address, 127.0.0.1 included (::7f00:1): refused too.
 */
export function isPublicAddress(address: string): boolean {
  const ip = parseIp(address);
  if (ip === null || ip.range() !== 'unicast') return false;
  return !(
    ip.kind() === 'ipv6' &&
    ip
      .toByteArray()
      .slice(0, 12)
      .every((byte) => byte === 0)
  );
}

/** Every address the URL's host stands for: itself when it is an address, else what DNS says (none if it fails). */
async function addressesOf(url: URL): Promise<string[]> {
  const host = hostOf(url);
  if (parseIp(host)) return [host];
  try {
    return (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    return [];
  }
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Resolves the URL's host and refuses it when any address it resolves to is not public, for
 * an early, clear 400 at creation time; delivery time is guarded again by the agents.
 * Returns a reason when refused, undefined when allowed.
 */
export async function refusePrivateHost(url: URL, allowPrivateNetworks: boolean): Promise<string | undefined> {
  if (allowPrivateNetworks) return undefined;
  const addresses = await addressesOf(url);
  if (addresses.length === 0) return `the host ${hostOf(url)} could not be resolved`;
  const blocked = addresses.find((address) => !isPublicAddress(address));
  return blocked ? `the host ${hostOf(url)} resolves to a private or reserved address` : undefined;
}

/** True when the URL's host resolves, and only to loopback, private or other non-public addresses. */
export async function isPrivateHost(url: URL): Promise<boolean> {
  const addresses = await addressesOf(url);
  return addresses.length > 0 && addresses.every((address) => !isPublicAddress(address));
}
