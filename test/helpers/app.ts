import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type pino from 'pino';
import { inject } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { createServices, type Services } from '../../src/services.js';
import { startWorker } from '../../src/worker.js';
import { TestClock } from './clock.js';
import { cloneTemplate, dropClone, dropSchema } from './pg-template.js';
import { freshBucket, s3Env } from './s3.js';

/**
 * A real server on a fresh database: SQLite in a temp dir, or a fresh PostgreSQL schema when
 * TEST_DATABASE_URL is set. Files are kept on its disk, or in a fresh bucket of the run's S3
 * server with TEST_BLOB_STORE=s3 (or the `blobStore` option). Requests go over real HTTP.
 */
export interface TestApp {
  app: FastifyInstance;
  config: Config;
  /** The server's own context, for tests that call services or jobs directly. */
  services: Services;
  database: DatabaseHandle;
  clock: TestClock;
  baseUrl: string;
  /** Environment that points a CLI process at the same data. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export const PUBLIC_BASE_URL = 'http://tagsvc.test';

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Listen address; '::' accepts IPv4 and IPv6 clients. */
  host?: string;
  /** Listen port; any free one unless given (a PUBLIC_BASE_URL naming the port needs it known first). */
  port?: number;
  /** Extra routes registered before the server starts (test fixtures for shared mechanisms). */
  extend?: (app: FastifyInstance) => void | Promise<void>;
  /** Also run the background worker (webhook deliveries, jobs) in this process. */
  worker?: boolean;
  /** The server's logger, for tests that read what it logs (LOG_LEVEL is ignored then). */
  log?: pino.Logger;
  /** Where files are kept: TEST_BLOB_STORE's choice (disk unless it says s3) unless given. */
  blobStore?: 'disk' | 's3';
}

/** The store the file tests run on: TEST_BLOB_STORE=s3 runs them on the object store. */
export const TEST_BLOB_STORE: 'disk' | 's3' = process.env.TEST_BLOB_STORE === 's3' ? 's3' : 'disk';

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tagsvc-test-'));
  const databaseUrl = process.env.TEST_DATABASE_URL;
  const schema = databaseUrl ? `t_${randomBytes(6).toString('hex')}` : undefined;
  // A copy of the run's migrated database, unless the test points the app elsewhere itself.
  const cloned =
    databaseUrl && options.env?.DATABASE_URL === undefined ? await cloneTemplate(databaseUrl, inject('pgTemplate'), schema!) : undefined;
  const objectStore = (options.blobStore ?? TEST_BLOB_STORE) === 's3' ? { BLOB_STORE: 's3', ...s3Env(await freshBucket()) } : {};
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL,
    SECRET_KEY: randomBytes(32).toString('hex'),
    // Feature tests make many requests with one key; the limiter has its own tests that turn it on.
    RATE_LIMITS: 'false',
    ...(databaseUrl ? { DATABASE_URL: cloned ?? databaseUrl, DATABASE_SCHEMA: schema!, DATABASE_POOL_SIZE: '4' } : {}),
    ...objectStore,
    ...options.env,
  };
  const config = loadConfig(env);
  const clock = new TestClock();
  const services = await createServices(config, { clock, log: options.log });
  const app = await buildApp(services);
  await options.extend?.(app);
  await app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const stopWorker = options.worker ? startWorker(services) : undefined;
  return {
    app,
    config,
    services,
    database: services.database,
    clock,
    baseUrl: `http://127.0.0.1:${port}`,
    env,
    async close() {
      await stopWorker?.();
      await app.close();
      await services.close();
      if (cloned) await dropClone(databaseUrl!, schema!);
      else if (databaseUrl && schema) await dropSchema(databaseUrl, schema);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let accountCounter = 0;

export interface Account {
  userId: string;
  email: string;
  /** A live key with every permission. */
  key: string;
}

/** The account's user acting in the dashboard on `plan`: the services' own callers in tests. */
export const actorOf = (account: Account, plan: 'free' | 'pro' | 'enterprise' = 'pro') => accounts.actorOfUser({ ...account, plan });

/** A user on `plan` with one all-permission live key. */
export async function createAccount(t: TestApp, plan: 'free' | 'pro' | 'enterprise' = 'pro'): Promise<Account> {
  const email = `user${++accountCounter}-${randomBytes(3).toString('hex')}@example.com`;
  const user = await accounts.createUser(t.services, OPERATOR, { email, password: 'correct horse battery', plan });
  const key = await accounts.createKey(t.services, OPERATOR, { email, name: 'default' });
  return { userId: user.id, email, key: key.key };
}

export async function createKey(
  t: TestApp,
  email: string,
  options: { permissions?: string; test?: boolean; organizationId?: string; ip?: string; name?: string } = {},
) {
  return accounts.createKey(t.services, OPERATOR, { email, name: options.name ?? 'key', ...options });
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  // Tests read whatever the endpoint returns; shapes are asserted field by field.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
  raw: Buffer;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  baseUrl?: string;
}

/**
 * One HTTP request to the test server over node:http (fetch would not let a test set Host);
 * JSON bodies are parsed when the response is JSON.
 */
export async function request(t: TestApp, method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const url = new URL(`${options.baseUrl ?? t.baseUrl}${path}`);
  const {
    status,
    headers: responseHeaders,
    payload,
  } = await new Promise<{ status: number; headers: Headers; payload: Buffer }>((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, payload: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
  const text = payload.toString('utf8');
  const isJson = responseHeaders.get('content-type')?.includes('json');
  return { status, headers: responseHeaders, body: isJson && text ? JSON.parse(text) : undefined, text, raw: payload };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `bin/tagsvc` with the test app's settings, as an operator would; `input` is piped to its
 * standard input (a password), which is otherwise empty.
 */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/tagsvc', ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: 'pipe',
    });
    child.stdin.end(input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The error envelope every failure must use. */
export function expectError(response: ApiResponse, status: number, code: string, field?: string): void {
  const context = `${response.status} ${response.text}`;
  if (response.status !== status) throw new Error(`expected ${status} ${code}, got ${context}`);
  const error = response.body?.error;
  if (response.body?.success !== false || error?.code !== code) throw new Error(`expected code ${code}, got ${context}`);
  if (typeof error.message !== 'string' || error.message.length === 0) throw new Error(`no message: ${context}`);
  if (error.request_id !== response.headers.get('x-request-id')) throw new Error(`request_id mismatch: ${context}`);
  if (field !== undefined && error.field !== field) throw new Error(`expected field ${field}, got ${context}`);
}
