import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Plan } from './db/schema.js';
import { parseCidr } from './lib/ip.js';

export type TrustProxy = boolean | number | string[];

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL connection string; SQLite in dataDir when absent. */
  databaseUrl?: string;
  /** PostgreSQL schema to use (created when missing); `public` when absent. */
  databaseSchema?: string;
  /** Connections per process in the PostgreSQL pool. */
  databasePoolSize: number;
  redisUrl?: string;
  /** Per-key and endpoint rate limits; failed-authentication limits apply regardless. */
  rateLimits: boolean;
  /** Multiplies every plan's request limits (self-hosters with bigger machines; benchmarks). */
  rateLimitMultiplier: number;
  publicBaseUrl: string;
  sandboxBaseUrl?: string;
  trustProxy: TrustProxy;
  secretKey: string;
  logLevel: string;
  allowPrivateNetworks: boolean;
  /** PEM certificates trusted for outbound HTTPS in addition to the system's (private CAs). */
  outboundCaFile?: string;
  /** Delays between webhook delivery attempts, in milliseconds. */
  webhookRetrySchedule: number[];
  /** How long a receiver has to answer one delivery attempt. */
  webhookTimeoutMs: number;
  /** Deliveries per minute per webhook; the spec's 1000 by default. */
  webhookDeliveriesPerMinute: number;
  sandboxRetentionDays: number;
  /** Days the audit log keeps an entry; the worker deletes older ones (jobs/audit-retention.ts). */
  auditRetentionDays: number;
  /** `open`: anyone may create an account at /dashboard/signup; `closed`: only the first-run setup and the CLI. */
  signup: 'open' | 'closed';
  /** The plan of accounts made by sign-up. */
  signupPlan: Plan;
  /** Browser origins allowed to call /v1 (CORS), or `*` for any; none when absent. */
  corsOrigins?: '*' | string[];
  /** Bearer token that GET /metrics requires; /metrics does not exist without it. */
  metricsToken?: string;
  /**
   * The longest wait on PostgreSQL or Redis (a connection, a pooled connection, one query or
   * command) before the request is answered 503.
   */
  dependencyTimeoutMs: number;
  /** How long a client has to send a request's line and headers (then 408). */
  headersTimeoutMs: number;
  /** How long a request may go without a byte moving either way: a stalled body (408), a client that stops reading. */
  idleTimeoutMs: number;
  /** How long an idle keep-alive connection is kept open between requests. */
  keepAliveTimeoutMs: number;
  /** Earlier values of SECRET_KEY, still accepted to decrypt what they encrypted (key rotation). */
  previousSecretKeys: string[];
  /** `smtp://` or `smtps://` server the worker sends mail through; without it each mail is logged. */
  smtpUrl?: string;
  /** The From of every mail: an address, optionally `Name <address>`. */
  mailFrom: string;
  /** Where file contents live: `disk` (DATA_DIR/files) or `s3` (the bucket of `s3`). */
  blobStore: 'disk' | 's3';
  /** The S3-compatible object store, when S3_BUCKET is set (BLOB_STORE=s3 requires it; `files copy` uses it). */
  s3?: S3Settings;
}

export interface S3Settings {
  /** The service's URL; AWS's own endpoint for the region when absent. */
  endpoint?: string;
  bucket: string;
  region: string;
  /** Both or neither; without them the SDK's default credential chain (instance roles) applies. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** `bucket` in the path (`endpoint/bucket/key`) rather than the host name: MinIO and most self-hosted stores. */
  forcePathStyle: boolean;
}

/** A setting that cannot be used; the message names the variable so the operator can fix it. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`Invalid ${variable}: ${reason}`);
  }
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';
const SECRET_FILE = 'secret.key';

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function baseUrl(env: Env, name: string, fallback?: string): string | undefined {
  const raw = read(env, name) ?? fallback;
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `not a URL: "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(name, 'must be an http or https URL');
  if (url.search || url.hash) throw new ConfigError(name, 'must not contain a query or fragment');
  return url.toString().replace(/\/+$/, '');
}

function trustProxy(env: Env): TrustProxy {
  const raw = read(env, 'TRUST_PROXY');
  if (raw === undefined || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  // A list of addresses, CIDR ranges or proxy-addr names (loopback, linklocal, uniquelocal).
  const entries = raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  for (const entry of entries) {
    if (!PROXY_NAMES.includes(entry) && !parseCidr(entry)) {
      throw new ConfigError(
        'TRUST_PROXY',
        `"${entry}" is not true, false, a hop count, an address, a CIDR range or one of ${PROXY_NAMES.join(', ')}`,
      );
    }
  }
  return entries;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `5s,5m,30m` into milliseconds; every duration must be positive. */
export function parseDurations(name: string, raw: string): number[] {
  return raw.split(',').map((part) => {
    const match = /^(\d+)(ms|s|m|h|d)$/.exec(part.trim());
    if (!match) throw new ConfigError(name, `"${part.trim()}" is not a duration like 5s, 5m or 2h`);
    const ms = Number(match[1]) * DURATION_UNITS[match[2]!]!;
    if (ms <= 0) throw new ConfigError(name, 'durations must be greater than zero');
    return ms;
  });
}

function duration(env: Env, name: string, fallback: string): number {
  const values = parseDurations(name, read(env, name) ?? fallback);
  if (values.length !== 1) throw new ConfigError(name, 'expected one duration, like 30s');
  return values[0]!;
}

function schemaName(env: Env): string | undefined {
  const raw = read(env, 'DATABASE_SCHEMA');
  if (raw !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(raw)) {
    throw new ConfigError('DATABASE_SCHEMA', 'use lower-case letters, digits and _ only');
  }
  return raw;
}

function databaseUrl(env: Env): string | undefined {
  const raw = read(env, 'DATABASE_URL');
  if (raw !== undefined && !/^postgres(ql)?:\/\//.test(raw)) {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// URL (leave it unset for embedded SQLite)');
  }
  return raw;
}

/** A PEM file of certificates, read now so a wrong path or content fails at start, not at the first request. */
function certificateFile(env: Env, name: string): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(raw, 'utf8');
  } catch {
    throw new ConfigError(name, `cannot read ${raw}`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(name, `${raw} holds no PEM certificate`);
  return raw;
}

/** The secret used for HMACs; generated once and kept in DATA_DIR when not configured. */
function secretKey(env: Env, dataDir: string): string {
  const configured = read(env, 'SECRET_KEY');
  if (configured !== undefined) {
    if (configured.length < 32) throw new ConfigError('SECRET_KEY', 'must be at least 32 characters');
    return configured;
  }
  const file = join(dataDir, SECRET_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const generated = randomBytes(32).toString('base64url');
  writeFileSync(file, generated, { mode: 0o600, flag: 'wx' });
  return generated;
}

/** SECRET_KEY_PREVIOUS: a comma-separated list of the secrets SECRET_KEY replaced, newest first. */
function previousSecretKeys(env: Env): string[] {
  const raw = read(env, 'SECRET_KEY_PREVIOUS');
  if (raw === undefined) return [];
  const keys = raw.split(',').map((part) => part.trim());
  if (keys.some((key) => key.length < 32)) throw new ConfigError('SECRET_KEY_PREVIOUS', 'every secret must be at least 32 characters');
  return keys;
}

function signup(env: Env): 'open' | 'closed' {
  const raw = read(env, 'SIGNUP')?.toLowerCase() ?? 'closed';
  if (raw !== 'open' && raw !== 'closed') throw new ConfigError('SIGNUP', `expected open or closed, got "${raw}"`);
  return raw;
}

const PLAN_NAMES: readonly string[] = ['free', 'pro', 'enterprise'] satisfies Plan[];
const isPlan = (value: string): value is Plan => PLAN_NAMES.includes(value);

function signupPlan(env: Env): Plan {
  const raw = read(env, 'SIGNUP_PLAN')?.toLowerCase() ?? 'pro';
  if (!isPlan(raw)) throw new ConfigError('SIGNUP_PLAN', `expected free, pro or enterprise, got "${raw}"`);
  return raw;
}

/** `*`, or a comma-separated list of origins (`https://app.example.com`), each written as browsers send it. */
function corsOrigins(env: Env): '*' | string[] | undefined {
  const raw = read(env, 'CORS_ORIGINS');
  if (raw === undefined || raw === '*') return raw;
  return raw.split(',').map((part) => {
    const entry = part.trim();
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    // A browser's Origin header is scheme://host[:port], lower-case, without a path: an entry
    // written otherwise would never match and is better refused now.
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== entry) {
      throw new ConfigError('CORS_ORIGINS', `"${entry}" is not an origin like https://app.example.com (scheme, host and port only), nor *`);
    }
    return entry;
  });
}

const MIN_METRICS_TOKEN = 16;

function metricsToken(env: Env): string | undefined {
  const raw = read(env, 'METRICS_TOKEN');
  if (raw !== undefined && raw.length < MIN_METRICS_TOKEN) {
    throw new ConfigError('METRICS_TOKEN', `must be at least ${MIN_METRICS_TOKEN} characters`);
  }
  return raw;
}

/** SMTP_URL: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465` (TLS from the start). */
function smtpUrl(env: Env): string | undefined {
  const raw = read(env, 'SMTP_URL');
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('SMTP_URL', 'not a URL (expected smtp://user:password@host:587 or smtps://…)');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new ConfigError('SMTP_URL', 'must be an smtp:// or smtps:// URL');
  if (!url.hostname) throw new ConfigError('SMTP_URL', 'names no host');
  if ((url.pathname !== '' && url.pathname !== '/') || url.hash) throw new ConfigError('SMTP_URL', 'must not contain a path or fragment');
  return raw;
}

/** MAIL_FROM: `address` or `Name <address>`; no-reply at PUBLIC_BASE_URL's host by default. */
function mailFrom(env: Env, publicBaseUrl: string): string {
  const raw = read(env, 'MAIL_FROM') ?? `tagsvc <no-reply@${new URL(publicBaseUrl).hostname}>`;
  const address = /<([^<>]+)>$/.exec(raw)?.[1] ?? raw;
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(address) || /[\r\n]/.test(raw)) {
    throw new ConfigError('MAIL_FROM', `expected an address like no-reply@example.com or "Name <no-reply@example.com>", got "${raw}"`);
  }
  return raw;
}

/** S3 bucket names: 3-63 lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function s3Settings(env: Env): S3Settings | undefined {
  const bucket = read(env, 'S3_BUCKET');
  if (bucket === undefined) return undefined;
  if (!BUCKET_NAME.test(bucket))
    throw new ConfigError('S3_BUCKET', `"${bucket}" is not a bucket name (3-63 lower-case letters, digits, dots and hyphens)`);
  const region = read(env, 'S3_REGION') ?? 'us-east-1';
  if (!/^[a-z0-9-]+$/.test(region)) throw new ConfigError('S3_REGION', `"${region}" is not a region name like eu-west-1`);
  const accessKeyId = read(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = read(env, 'S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    const missing = accessKeyId === undefined ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY';
    throw new ConfigError(missing, 'set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (the default credential chain)');
  }
  return {
    endpoint: baseUrl(env, 'S3_ENDPOINT'),
    bucket,
    region,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: boolean(env, 'S3_FORCE_PATH_STYLE', false),
  };
}

function blobStore(env: Env, s3: S3Settings | undefined): Config['blobStore'] {
  const raw = read(env, 'BLOB_STORE')?.toLowerCase() ?? 'disk';
  if (raw !== 'disk' && raw !== 's3') throw new ConfigError('BLOB_STORE', `expected disk or s3, got "${raw}"`);
  if (raw === 's3' && !s3) throw new ConfigError('S3_BUCKET', 'BLOB_STORE=s3 needs the bucket to keep files in');
  return raw;
}

/** Reads and validates every setting; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const dataDir = resolve(read(env, 'DATA_DIR') ?? './data');
  const logLevel = read(env, 'LOG_LEVEL')?.toLowerCase() ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}`);
  const redisUrl = read(env, 'REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
  }
  const publicBaseUrl = baseUrl(env, 'PUBLIC_BASE_URL', `http://localhost:${port}`)!;
  const s3 = s3Settings(env);
  const config: Config = {
    port,
    host: read(env, 'HOST') ?? '127.0.0.1',
    dataDir,
    databaseUrl: databaseUrl(env),
    databaseSchema: schemaName(env),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    redisUrl,
    rateLimits: boolean(env, 'RATE_LIMITS', true),
    rateLimitMultiplier: integer(env, 'RATE_LIMIT_MULTIPLIER', 1, 1, 1_000_000),
    publicBaseUrl,
    sandboxBaseUrl: baseUrl(env, 'SANDBOX_BASE_URL'),
    trustProxy: trustProxy(env),
    secretKey: '',
    logLevel,
    allowPrivateNetworks: boolean(env, 'ALLOW_PRIVATE_NETWORKS', false),
    outboundCaFile: certificateFile(env, 'OUTBOUND_CA_FILE'),
    webhookRetrySchedule: parseDurations('WEBHOOK_RETRY_SCHEDULE', read(env, 'WEBHOOK_RETRY_SCHEDULE') ?? DEFAULT_RETRY_SCHEDULE),
    webhookTimeoutMs: duration(env, 'WEBHOOK_TIMEOUT', '30s'),
    webhookDeliveriesPerMinute: integer(env, 'WEBHOOK_DELIVERIES_PER_MINUTE', 1000, 1, 10_000_000),
    sandboxRetentionDays: integer(env, 'SANDBOX_RETENTION_DAYS', 30, 1, 3650),
    auditRetentionDays: integer(env, 'AUDIT_RETENTION_DAYS', 365, 1, 36500),
    signup: signup(env),
    signupPlan: signupPlan(env),
    corsOrigins: corsOrigins(env),
    metricsToken: metricsToken(env),
    dependencyTimeoutMs: duration(env, 'DEPENDENCY_TIMEOUT', '5s'),
    headersTimeoutMs: duration(env, 'HEADERS_TIMEOUT', '10s'),
    idleTimeoutMs: duration(env, 'IDLE_TIMEOUT', '30s'),
    keepAliveTimeoutMs: duration(env, 'KEEP_ALIVE_TIMEOUT', '72s'),
    previousSecretKeys: previousSecretKeys(env),
    smtpUrl: smtpUrl(env),
    mailFrom: mailFrom(env, publicBaseUrl),
    blobStore: blobStore(env, s3),
    s3,
  };
  // Last, so a bad setting elsewhere never leaves a freshly generated secret behind.
  config.secretKey = secretKey(env, dataDir);
  return config;
}
