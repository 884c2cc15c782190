import { AliasTable, mix32 } from './random.js';

/**
 * What the synthetic traffic looks like. The shapes matter to the figures: how many rollup rows
 * a tag has per day (countries, browsers), how many distinct visitors per hour, how skewed tags
 * are. The numbers are plausible for QR-code pages, not measured from a real deployment.
 */

/** Device, browser and OS as ua-parser-js names them; weights in % (60 mobile, 35 desktop, 5 tablet). */
export const PROFILES = [
  { device: 'mobile', browser: 'Mobile Safari', os: 'iOS', weight: 26 },
  { device: 'mobile', browser: 'Chrome', os: 'Android', weight: 20 },
  { device: 'mobile', browser: 'Samsung Browser', os: 'Android', weight: 7 },
  { device: 'mobile', browser: 'Chrome WebView', os: 'Android', weight: 4 },
  { device: 'mobile', browser: 'Chrome', os: 'iOS', weight: 3 },
  { device: 'desktop', browser: 'Chrome', os: 'Windows', weight: 16 },
  { device: 'desktop', browser: 'Edge', os: 'Windows', weight: 6 },
  { device: 'desktop', browser: 'Safari', os: 'Mac OS', weight: 5 },
  { device: 'desktop', browser: 'Chrome', os: 'Mac OS', weight: 4 },
  { device: 'desktop', browser: 'Firefox', os: 'Windows', weight: 2 },
  { device: 'desktop', browser: 'Firefox', os: 'Linux', weight: 1 },
  { device: 'desktop', browser: 'Opera', os: 'Windows', weight: 1 },
  { device: 'tablet', browser: 'Mobile Safari', os: 'iOS', weight: 3 },
  { device: 'tablet', browser: 'Chrome', os: 'Android', weight: 2 },
] as const;

/** 20 countries (ISO codes, as the geolocation stores them) and a share with no location. */
export const COUNTRIES = [
  { code: 'US', region: 'California', city: 'Los Angeles', weight: 18 },
  { code: 'DE', region: 'Berlin', city: 'Berlin', weight: 9 },
  { code: 'GB', region: 'England', city: 'London', weight: 8 },
  { code: 'FR', region: 'Île-de-France', city: 'Paris', weight: 7 },
  { code: 'IN', region: 'Maharashtra', city: 'Mumbai', weight: 6 },
  { code: 'BR', region: 'São Paulo', city: 'São Paulo', weight: 5 },
  { code: 'JP', region: 'Tokyo', city: 'Tokyo', weight: 5 },
  { code: 'CA', region: 'Ontario', city: 'Toronto', weight: 4 },
  { code: 'ES', region: 'Madrid', city: 'Madrid', weight: 4 },
  { code: 'IT', region: 'Lazio', city: 'Rome', weight: 4 },
  { code: 'NL', region: 'North Holland', city: 'Amsterdam', weight: 3 },
  { code: 'AU', region: 'New South Wales', city: 'Sydney', weight: 3 },
  { code: 'MX', region: 'Mexico City', city: 'Mexico City', weight: 3 },
  { code: 'PL', region: 'Mazovia', city: 'Warsaw', weight: 3 },
  { code: 'SE', region: 'Stockholm', city: 'Stockholm', weight: 2 },
  { code: 'CH', region: 'Zurich', city: 'Zurich', weight: 2 },
  { code: 'KR', region: 'Seoul', city: 'Seoul', weight: 2 },
  { code: 'TR', region: 'Istanbul', city: 'Istanbul', weight: 2 },
  { code: 'ZA', region: 'Gauteng', city: 'Johannesburg', weight: 1.5 },
  { code: 'AR', region: 'Buenos Aires', city: 'Buenos Aires', weight: 1.5 },
  // Private addresses, proxies, addresses the database does not know.
  { code: null, region: null, city: null, weight: 3 },
] as const;

export const REFERRERS = [
  'https://www.google.com/',
  'https://www.bing.com/',
  'https://t.co/',
  'https://www.facebook.com/',
  'https://www.linkedin.com/',
  'https://www.instagram.com/',
  'https://duckduckgo.com/',
  'https://news.ycombinator.com/',
];

/** Relative traffic by UTC hour: quiet at night for Europe and the Americas, peak in the evening. */
export const HOUR_WEIGHTS = [
  0.35, 0.25, 0.2, 0.18, 0.2, 0.3, 0.5, 0.75, 0.95, 1.05, 1.1, 1.15, 1.25, 1.3, 1.35, 1.4, 1.45, 1.5, 1.5, 1.4, 1.2, 0.95, 0.7, 0.5,
];

/** Relative traffic by day of the week, Sunday first. */
export const WEEKDAY_WEIGHTS = [0.75, 1.0, 1.05, 1.05, 1.05, 1.1, 0.9];

/** Zipf exponent of tag popularity: the top tag gets about 13 % of all views among 1,000. */
export const ZIPF_EXPONENT = 1;

/** Share of views by a visitor who saw the same tag recently (the rest come from the whole pool). */
export const RETURNING_SHARE = 0.3;

/** Share of views whose page reported a time on page through the beacon. */
export const DURATION_SHARE = 0.55;

const profilePicker = new AliasTable(PROFILES.map((p) => p.weight));
const countryPicker = new AliasTable(COUNTRIES.map((c) => c.weight));
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Visitors are numbers in a pool; everything about one (its cookie id, device, country,
 * address) is derived from its number, so a returning visitor always looks the same and
 * nothing about the pool has to be kept in memory.
 */
export class Visitors {
  constructor(
    readonly size: number,
    private readonly seed: number,
  ) {}

  /** 24 characters like the service's cookie ids; distinct numbers give distinct ids. */
  id(visitor: number): string {
    let out = '';
    for (let part = 0; part < 4; part++) {
      // Part 0 is a bijection of the number itself: that alone makes the ids unique.
      let bits = part === 0 ? mix32(visitor ^ this.seed) : mix32(visitor * 4 + part + this.seed);
      for (let i = 0; i < 6; i++) {
        out += BASE64URL[bits & 63];
        bits >>>= 6;
      }
    }
    return out;
  }

  profile(visitor: number): number {
    return profilePicker.pick(mix32(visitor + 0x51ed27 + this.seed) / 4294967296);
  }

  country(visitor: number): number {
    return countryPicker.pick(mix32(visitor + 0x2545f491 + this.seed) / 4294967296);
  }

  /** A masked address as the service stores it (never a whole address). */
  maskedIp(visitor: number): string {
    const bits = mix32(visitor + 0x68e31da4 + this.seed);
    return `${11 + ((bits >>> 24) % 180)}.${(bits >>> 16) & 255}.${(bits >>> 8) & 255}.xxx`;
  }
}

/**
 * The dimension values in the order of tag_daily_dimensions' primary key (dimension, then
 * value), each with its slot in the per-tag counters.
 */
export function dimensionLayout() {
  const browsers = [...new Set(PROFILES.map((p) => p.browser))];
  const devices = ['desktop', 'mobile', 'tablet'];
  const countries = COUNTRIES.map((c) => c.code ?? 'unknown');
  const slots: Array<{ dimension: string; value: string; slot: number }> = [];
  let slot = 0;
  const add = (dimension: string, values: string[]) => {
    const first = slot;
    slot += values.length;
    return values.map((value, i) => ({ dimension, value, slot: first + i }));
  };
  const browserSlots = add('browser', browsers);
  const countrySlots = add('country', countries);
  const deviceSlots = add('device', devices);
  slots.push(
    ...[...browserSlots, ...countrySlots, ...deviceSlots].sort((a, b) =>
      a.dimension === b.dimension ? (a.value < b.value ? -1 : 1) : a.dimension < b.dimension ? -1 : 1,
    ),
  );
  const profileSlots = PROFILES.map((p) => ({
    browser: browserSlots[browsers.indexOf(p.browser)]!.slot,
    device: deviceSlots[devices.indexOf(p.device)]!.slot,
  }));
  return { slots, width: slot, profileSlots, countrySlot: (country: number) => countrySlots[country]!.slot };
}
