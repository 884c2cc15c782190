import cors from '@fastify/cors';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { Config } from '../config.js';

/** Seconds a browser may keep a preflight's answer (Chromium keeps at most 7200). */
const PREFLIGHT_MAX_AGE = 600;

/** What a browser client sends: the key, JSON bodies, retries, conditional and ranged downloads. */
const ALLOWED_HEADERS = ['Authorization', 'X-API-Key', 'Content-Type', 'Idempotency-Key', 'If-None-Match', 'Range'];

/** What a browser client may read besides the simple headers. */
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Idempotent-Replayed',
  'Original-Request-Id',
  'ETag',
  'Content-Disposition',
  'Content-Range',
];

/**
 * CORS for the /v1 scope only (CORS_ORIGINS; none when unset, so nothing is added): allowed
 * origins get Access-Control-Allow-Origin on every answer, errors included, and preflights are
 * answered 204 before authentication, as browsers send them without the key. Credentials are
 * not allowed: the API takes keys in headers, never cookies. The dashboard is another scope
 * and never gets these headers.
 */
export async function registerCors(v1: FastifyInstance, origins: Config['corsOrigins']): Promise<void> {
  if (!origins) return;
  await v1.register(cors, {
    origin: origins,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
    // An OPTIONS without Origin gets the 204 too, rather than a text/plain 400 outside the envelope.
    strictPreflight: false,
  });
}

/** The preflight route @fastify/cors adds (OPTIONS /v1/*): no key, no permission. */
export const isPreflightRoute = (route: RouteOptions) => route.method === 'OPTIONS';
