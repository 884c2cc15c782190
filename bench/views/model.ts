import { DIRECT, SCOPE_DIMENSIONS, TAG_DIMENSIONS, UNKNOWN } from '../../src/db/dimensions.js';
import { AliasTable, mix32 } from './random.js';

/**
 * What the synthetic traffic looks like. The shapes matter to the figures: how many rollup rows
 * a tag has per day (countries, browsers), how many distinct visitors per hour, how skewed tags
 * are. The numbers are plausible for QR-code pages, not measured from a real deployment.
 */

/** Device, browser and OS as ua-parser-js names them; weights in % (60 mobile, 35 desktop, 5 tablet). */
export const PROFILES = [
  { device: 'mobile', browser: 'Mobile Safari', os: 'iOS', weight: 26 },
  { device: 'mobile', browser: 'Chrome', os: 'Android', weight: 19 },
  { device: 'mobile', browser: 'Samsung Browser', os: 'Android', weight: 7 },
  { device: 'mobile', browser: 'Chrome WebView', os: 'Android', weight: 4 },
  { device: 'mobile', browser: 'Chrome', os: 'iOS', weight: 3 },
  { device: 'desktop', browser: 'Chrome', os: 'Windows', weight: 15 },
  { device: 'desktop', browser: 'Edge', os: 'Windows', weight: 6 },
  { device: 'desktop', browser: 'Safari', os: 'Mac OS', weight: 5 },
  { device: 'desktop', browser: 'Chrome', os: 'Mac OS', weight: 4 },
  { device: 'desktop', browser: 'Firefox', os: 'Windows', weight: 2 },
  { device: 'desktop', browser: 'Firefox', os: 'Linux', weight: 1 },
  { device: 'desktop', browser: 'Opera', os: 'Windows', weight: 1 },
  { device: 'tablet', browser: 'Mobile Safari', os: 'iOS', weight: 3 },
  { device: 'tablet', browser: 'Chrome', os: 'Android', weight: 2 },
  // The long tail of operating systems (ten in all), from the share taken off the profiles above.
  { device: 'desktop', browser: 'Chrome', os: 'Chromium OS', weight: 0.6 },
  { device: 'desktop', browser: 'Firefox', os: 'Ubuntu', weight: 0.4 },
  { device: 'mobile', browser: 'Huawei Browser', os: 'HarmonyOS', weight: 0.5 },
  { device: 'mobile', browser: 'Opera Mini', os: 'KAIOS', weight: 0.2 },
  { device: 'tablet', browser: 'Silk', os: 'Fire OS', weight: 0.3 },
] as const;

/**
 * 20 countries (ISO codes, as the geolocation stores them) and a share with no location; each
 * country's cities as `city/region`, the largest first (a city's share of its country falls as
 * 1/rank): 213 places, as a database of cities names them for a year of an account's visitors.
 */
export const COUNTRIES = [
  {
    code: 'US',
    weight: 18,
    cities: [
      'New York/New York',
      'Los Angeles/California',
      'Chicago/Illinois',
      'Houston/Texas',
      'Phoenix/Arizona',
      'Philadelphia/Pennsylvania',
      'San Antonio/Texas',
      'San Diego/California',
      'Dallas/Texas',
      'San Jose/California',
      'Austin/Texas',
      'Seattle/Washington',
      'Denver/Colorado',
      'Boston/Massachusetts',
      'Miami/Florida',
      'Atlanta/Georgia',
      'Portland/Oregon',
      'Minneapolis/Minnesota',
      'Nashville/Tennessee',
      'Las Vegas/Nevada',
      'Detroit/Michigan',
      'Baltimore/Maryland',
      'Charlotte/North Carolina',
      'Columbus/Ohio',
      'Salt Lake City/Utah',
    ],
  },
  {
    code: 'DE',
    weight: 9,
    cities: [
      'Berlin/Berlin',
      'Hamburg/Hamburg',
      'Munich/Bavaria',
      'Cologne/North Rhine-Westphalia',
      'Frankfurt am Main/Hesse',
      'Stuttgart/Baden-Württemberg',
      'Düsseldorf/North Rhine-Westphalia',
      'Leipzig/Saxony',
      'Dortmund/North Rhine-Westphalia',
      'Essen/North Rhine-Westphalia',
      'Bremen/Bremen',
      'Dresden/Saxony',
      'Hanover/Lower Saxony',
      'Nuremberg/Bavaria',
      'Freiburg/Baden-Württemberg',
    ],
  },
  {
    code: 'GB',
    weight: 8,
    cities: [
      'London/England',
      'Manchester/England',
      'Birmingham/England',
      'Glasgow/Scotland',
      'Leeds/England',
      'Liverpool/England',
      'Edinburgh/Scotland',
      'Bristol/England',
      'Sheffield/England',
      'Cardiff/Wales',
      'Belfast/Northern Ireland',
      'Newcastle upon Tyne/England',
      'Nottingham/England',
      'Brighton/England',
      'Cambridge/England',
    ],
  },
  {
    code: 'FR',
    weight: 7,
    cities: [
      'Paris/Île-de-France',
      'Marseille/Provence-Alpes-Côte d’Azur',
      'Lyon/Auvergne-Rhône-Alpes',
      'Toulouse/Occitanie',
      'Nice/Provence-Alpes-Côte d’Azur',
      'Nantes/Pays de la Loire',
      'Strasbourg/Grand Est',
      'Montpellier/Occitanie',
      'Bordeaux/Nouvelle-Aquitaine',
      'Lille/Hauts-de-France',
      'Rennes/Brittany',
      'Grenoble/Auvergne-Rhône-Alpes',
    ],
  },
  {
    code: 'IN',
    weight: 6,
    cities: [
      'Mumbai/Maharashtra',
      'Delhi/Delhi',
      'Bengaluru/Karnataka',
      'Hyderabad/Telangana',
      'Chennai/Tamil Nadu',
      'Kolkata/West Bengal',
      'Pune/Maharashtra',
      'Ahmedabad/Gujarat',
      'Jaipur/Rajasthan',
      'Lucknow/Uttar Pradesh',
      'Kochi/Kerala',
      'Chandigarh/Chandigarh',
    ],
  },
  {
    code: 'BR',
    weight: 5,
    cities: [
      'São Paulo/São Paulo',
      'Rio de Janeiro/Rio de Janeiro',
      'Brasília/Federal District',
      'Salvador/Bahia',
      'Fortaleza/Ceará',
      'Belo Horizonte/Minas Gerais',
      'Manaus/Amazonas',
      'Curitiba/Paraná',
      'Recife/Pernambuco',
      'Porto Alegre/Rio Grande do Sul',
    ],
  },
  {
    code: 'JP',
    weight: 5,
    cities: [
      'Tokyo/Tokyo',
      'Yokohama/Kanagawa',
      'Osaka/Osaka',
      'Nagoya/Aichi',
      'Sapporo/Hokkaido',
      'Fukuoka/Fukuoka',
      'Kobe/Hyogo',
      'Kyoto/Kyoto',
      'Kawasaki/Kanagawa',
      'Sendai/Miyagi',
      'Hiroshima/Hiroshima',
    ],
  },
  {
    code: 'CA',
    weight: 4,
    cities: [
      'Toronto/Ontario',
      'Montreal/Quebec',
      'Vancouver/British Columbia',
      'Calgary/Alberta',
      'Edmonton/Alberta',
      'Ottawa/Ontario',
      'Winnipeg/Manitoba',
      'Quebec City/Quebec',
      'Hamilton/Ontario',
      'Halifax/Nova Scotia',
    ],
  },
  {
    code: 'ES',
    weight: 4,
    cities: [
      'Madrid/Madrid',
      'Barcelona/Catalonia',
      'Valencia/Valencia',
      'Seville/Andalusia',
      'Zaragoza/Aragon',
      'Málaga/Andalusia',
      'Bilbao/Basque Country',
      'Palma/Balearic Islands',
      'Las Palmas/Canary Islands',
      'Granada/Andalusia',
    ],
  },
  {
    code: 'IT',
    weight: 4,
    cities: [
      'Rome/Lazio',
      'Milan/Lombardy',
      'Naples/Campania',
      'Turin/Piedmont',
      'Palermo/Sicily',
      'Genoa/Liguria',
      'Bologna/Emilia-Romagna',
      'Florence/Tuscany',
      'Venice/Veneto',
      'Verona/Veneto',
      'Bari/Apulia',
    ],
  },
  {
    code: 'NL',
    weight: 3,
    cities: [
      'Amsterdam/North Holland',
      'Rotterdam/South Holland',
      'The Hague/South Holland',
      'Utrecht/Utrecht',
      'Eindhoven/North Brabant',
      'Groningen/Groningen',
      'Tilburg/North Brabant',
      'Nijmegen/Gelderland',
      'Haarlem/North Holland',
    ],
  },
  {
    code: 'AU',
    weight: 3,
    cities: [
      'Sydney/New South Wales',
      'Melbourne/Victoria',
      'Brisbane/Queensland',
      'Perth/Western Australia',
      'Adelaide/South Australia',
      'Gold Coast/Queensland',
      'Canberra/Australian Capital Territory',
      'Newcastle/New South Wales',
      'Hobart/Tasmania',
    ],
  },
  {
    code: 'MX',
    weight: 3,
    cities: [
      'Mexico City/Mexico City',
      'Guadalajara/Jalisco',
      'Monterrey/Nuevo León',
      'Puebla/Puebla',
      'Tijuana/Baja California',
      'León/Guanajuato',
      'Mérida/Yucatán',
      'Cancún/Quintana Roo',
      'Querétaro/Querétaro',
    ],
  },
  {
    code: 'PL',
    weight: 3,
    cities: [
      'Warsaw/Mazovia',
      'Kraków/Lesser Poland',
      'Łódź/Łódź',
      'Wrocław/Lower Silesia',
      'Poznań/Greater Poland',
      'Gdańsk/Pomerania',
      'Szczecin/West Pomerania',
      'Lublin/Lublin',
      'Katowice/Silesia',
    ],
  },
  {
    code: 'SE',
    weight: 2,
    cities: [
      'Stockholm/Stockholm',
      'Gothenburg/Västra Götaland',
      'Malmö/Skåne',
      'Uppsala/Uppsala',
      'Västerås/Västmanland',
      'Örebro/Örebro',
      'Linköping/Östergötland',
      'Umeå/Västerbotten',
    ],
  },
  {
    code: 'CH',
    weight: 2,
    cities: [
      'Zurich/Zurich',
      'Geneva/Geneva',
      'Basel/Basel-City',
      'Lausanne/Vaud',
      'Bern/Bern',
      'Winterthur/Zurich',
      'Lucerne/Lucerne',
      'St. Gallen/St. Gallen',
      'Lugano/Ticino',
    ],
  },
  {
    code: 'KR',
    weight: 2,
    cities: [
      'Seoul/Seoul',
      'Busan/Busan',
      'Incheon/Incheon',
      'Daegu/Daegu',
      'Daejeon/Daejeon',
      'Gwangju/Gwangju',
      'Suwon/Gyeonggi',
      'Ulsan/Ulsan',
    ],
  },
  {
    code: 'TR',
    weight: 2,
    cities: [
      'Istanbul/Istanbul',
      'Ankara/Ankara',
      'Izmir/Izmir',
      'Bursa/Bursa',
      'Antalya/Antalya',
      'Adana/Adana',
      'Konya/Konya',
      'Gaziantep/Gaziantep',
    ],
  },
  {
    code: 'ZA',
    weight: 1.5,
    cities: [
      'Johannesburg/Gauteng',
      'Cape Town/Western Cape',
      'Durban/KwaZulu-Natal',
      'Pretoria/Gauteng',
      'Port Elizabeth/Eastern Cape',
      'Bloemfontein/Free State',
    ],
  },
  {
    code: 'AR',
    weight: 1.5,
    cities: [
      'Buenos Aires/Buenos Aires',
      'Córdoba/Córdoba',
      'Rosario/Santa Fe',
      'Mendoza/Mendoza',
      'La Plata/Buenos Aires',
      'Mar del Plata/Buenos Aires',
      'Salta/Salta',
    ],
  },
  // Private addresses, proxies, addresses the database does not know.
  { code: null, weight: 3, cities: [] },
] as const;

/**
 * Where views from other sites come from, as tracking.ts keeps a Referer (origin and path),
 * with their weights: search and social first, then a long tail, 34 hosts in all.
 */
export const REFERRERS: Array<[url: string, weight: number]> = [
  ['https://www.google.com/', 30],
  ['https://www.facebook.com/', 9],
  ['https://www.instagram.com/', 8],
  ['https://t.co/', 6],
  ['https://www.bing.com/', 5],
  ['https://www.linkedin.com/', 5],
  ['https://duckduckgo.com/', 3],
  ['https://l.facebook.com/l.php', 3],
  ['https://www.reddit.com/r/', 3],
  ['https://news.ycombinator.com/item', 2],
  ['https://www.youtube.com/', 2],
  ['https://www.pinterest.com/', 2],
  ['https://www.tiktok.com/', 2],
  ['https://search.yahoo.com/', 1.5],
  ['https://yandex.ru/', 1.2],
  ['https://www.google.de/', 1.2],
  ['https://www.google.co.uk/', 1.1],
  ['https://www.google.fr/', 1],
  ['https://www.ecosia.org/', 1],
  ['https://lm.facebook.com/l.php', 1],
  ['https://web.whatsapp.com/', 0.9],
  ['https://web.telegram.org/', 0.8],
  ['https://mail.google.com/', 0.8],
  ['https://outlook.live.com/', 0.7],
  ['https://www.baidu.com/', 0.6],
  ['https://medium.com/', 0.6],
  ['https://github.com/', 0.5],
  ['https://www.tripadvisor.com/', 0.5],
  ['https://maps.google.com/', 0.5],
  ['https://www.yelp.com/', 0.4],
  ['https://substack.com/', 0.4],
  ['https://chatgpt.com/', 0.4],
  ['https://www.threads.net/', 0.3],
  ['https://bsky.app/', 0.3],
];

/**
 * The page address's UTM parameters of a view (null: not given), with their shares in %: most
 * views have none; printed QR codes and a few campaigns carry some, not always all three.
 */
export const CAMPAIGNS: Array<{ source: string | null; medium: string | null; campaign: string | null; weight: number }> = [
  { source: null, medium: null, campaign: null, weight: 78 },
  { source: 'poster', medium: 'print', campaign: 'spring-2026', weight: 5 },
  { source: 'flyer', medium: 'print', campaign: 'spring-2026', weight: 2 },
  { source: 'newsletter', medium: 'email', campaign: 'monthly-digest', weight: 3 },
  { source: 'newsletter', medium: 'email', campaign: 'welcome-series', weight: 1 },
  { source: 'facebook', medium: 'social', campaign: 'summer-launch', weight: 2.5 },
  { source: 'instagram', medium: 'social', campaign: 'summer-launch', weight: 2 },
  { source: 'google', medium: 'cpc', campaign: 'brand', weight: 1.5 },
  { source: 'google', medium: 'cpc', campaign: 'menu-search', weight: 0.8 },
  { source: 'linkedin', medium: 'social', campaign: 'trade-fair', weight: 0.7 },
  { source: 'packaging', medium: 'print', campaign: null, weight: 0.8 },
  { source: 'qr', medium: null, campaign: null, weight: 1.2 },
  { source: 'partner-site', medium: 'referral', campaign: 'co-op', weight: 0.5 },
  { source: 'sms', medium: 'sms', campaign: 'black-friday', weight: 0.5 },
  { source: 'bus-shelter', medium: 'ooh', campaign: 'city-lights', weight: 0.5 },
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

/**
 * Every place a visitor can be in, countries' cities flattened (a visitor without a location is
 * one place with nulls), each weighted by its country's share and its rank in the country.
 */
export const PLACES = COUNTRIES.flatMap((country, countryIndex) => {
  const names: readonly string[] = country.cities.length > 0 ? country.cities : ['/'];
  const harmonic = names.reduce((sum, _, rank) => sum + 1 / (rank + 1), 0);
  return names.map((name, rank) => {
    const [city, region] = name.split('/') as [string, string];
    return {
      countryIndex,
      code: country.code,
      city: city || null,
      region: region || null,
      weight: (country.weight * (1 / (rank + 1))) / harmonic,
    };
  });
});

/** A kept referrer's host as the rollups key it (dimensions.ts): after `://`, without `www.`. */
export function referrerHost(url: string): string {
  const host = url.slice(url.indexOf('://') + 3).split('/')[0]!;
  return host.startsWith('www.') ? host.slice(4) : host;
}

const profilePicker = new AliasTable(PROFILES.map((p) => p.weight));
const placePicker = new AliasTable(PLACES.map((p) => p.weight));
const referrerPicker = new AliasTable(REFERRERS.map(([, weight]) => weight));
/** A view's UTM parameters: drawn per view, for one visitor follows links of several campaigns. */
export const campaignPicker = new AliasTable(CAMPAIGNS.map((c) => c.weight));
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Visitors are numbers in a pool; everything about one (its cookie id, device, place, address,
 * the site it comes from when it follows a link) is derived from its number, so a returning
 * visitor always looks the same and nothing about the pool has to be kept in memory.
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

  /** An index of PLACES. */
  place(visitor: number): number {
    return placePicker.pick(mix32(visitor + 0x2545f491 + this.seed) / 4294967296);
  }

  /** An index of REFERRERS: where the visitor's views from other sites come from. */
  referrer(visitor: number): number {
    return referrerPicker.pick(mix32(visitor + 0x1b873593 + this.seed) / 4294967296);
  }

  /** A masked address as the service stores it (never a whole address). */
  maskedIp(visitor: number): string {
    const bits = mix32(visitor + 0x68e31da4 + this.seed);
    return `${11 + ((bits >>> 24) % 180)}.${(bits >>> 16) & 255}.${(bits >>> 8) & 255}.xxx`;
  }
}

const distinct = (values: Array<string | null>) => [...new Set(values.filter((v): v is string => v !== null))];

/**
 * Every value of each dimension a generated view can have, as the rollups key it
 * (src/db/dimensions.ts): cities with their country, referrers by host or `direct`, a missing
 * value as `unknown`. Keyed by the service's own list, so a dimension added there and not here
 * fails the generation.
 */
function dimensionValueLists(): Record<(typeof TAG_DIMENSIONS)[number], string[]> {
  const located = PLACES.filter((p) => p.city !== null);
  return {
    device: ['desktop', 'mobile', 'tablet'],
    country: distinct(COUNTRIES.map((c) => c.code ?? UNKNOWN)),
    browser: distinct(PROFILES.map((p) => p.browser)),
    os: distinct(PROFILES.map((p) => p.os)),
    referrer: [...distinct(REFERRERS.map(([url]) => referrerHost(url))), DIRECT],
    city: [...located.map((p) => `${p.code} ${p.city}`), UNKNOWN],
    utm_source: [...distinct(CAMPAIGNS.map((c) => c.source)), UNKNOWN],
    utm_medium: [...distinct(CAMPAIGNS.map((c) => c.medium)), UNKNOWN],
    utm_campaign: [...distinct(CAMPAIGNS.map((c) => c.campaign)), UNKNOWN],
  };
}

/**
 * The dimension values in the order of tag_daily_dimensions' primary key (dimension, then
 * value), each with its slot in the per-tag counters, and the slots each property of a view
 * counts in.
 */
export function dimensionLayout() {
  const lists = dimensionValueLists();
  const slots: Array<{ dimension: string; value: string; slot: number }> = [];
  const slotOf = new Map<string, number>();
  for (const dimension of TAG_DIMENSIONS)
    for (const value of lists[dimension]) {
      slotOf.set(`${dimension}|${value}`, slots.length);
      slots.push({ dimension, value, slot: slots.length });
    }
  const slot = (dimension: string, value: string | null) => slotOf.get(`${dimension}|${value ?? UNKNOWN}`)!;
  slots.sort((a, b) => (a.dimension === b.dimension ? (a.value < b.value ? -1 : 1) : a.dimension < b.dimension ? -1 : 1));
  return {
    slots,
    width: slots.length,
    /** The slots of the overview's dimensions (a scope's rows add up its tags'). */
    scopeSlots: slots.filter((s) => (SCOPE_DIMENSIONS as readonly string[]).includes(s.dimension)),
    profileSlots: PROFILES.map((p) => [slot('browser', p.browser), slot('device', p.device), slot('os', p.os)]),
    placeSlots: PLACES.map((p) => [slot('country', p.code), slot('city', p.city === null ? null : `${p.code} ${p.city}`)]),
    referrerSlots: REFERRERS.map(([url]) => slot('referrer', referrerHost(url))),
    directSlot: slot('referrer', DIRECT),
    campaignSlots: CAMPAIGNS.map((c) => [slot('utm_source', c.source), slot('utm_medium', c.medium), slot('utm_campaign', c.campaign)]),
  };
}
