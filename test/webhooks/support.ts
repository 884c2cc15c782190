import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import { request, type TestApp } from '../helpers/app.js';
import { Receiver, testCertificate, waitFor, type ReceivedRequest } from '../helpers/receiver.js';

/** Settings that let the service deliver to the local self-signed HTTPS receivers quickly. */
export async function deliveryEnv(overrides: Record<string, string> = {}): Promise<Record<string, string>> {
  const { caFile } = await testCertificate();
  return {
    ALLOW_PRIVATE_NETWORKS: 'true',
    OUTBOUND_CA_FILE: caFile,
    WEBHOOK_RETRY_SCHEDULE: '100ms,200ms',
    WEBHOOK_TIMEOUT: '1s',
    ...overrides,
  };
}

/**
 * Trust for the test receiver in a spawned `bin/tagsvc`: NODE_EXTRA_CA_CERTS (loaded once at
 * start) instead of OUTBOUND_CA_FILE. With OUTBOUND_CA_FILE every new outbound TLS connection
 * rebuilds the trust store (~20 ms of CPU), so a burst of 50 deliveries stalls the process for
 * over a second and, with WEBHOOK_TIMEOUT 1s, times out: a bug of its own, pinned by
 * burst.test.ts, that would otherwise blur what the process tests check.
 */
export async function spawnedTrust(): Promise<Record<string, string>> {
  const { caFile } = await testCertificate();
  return { OUTBOUND_CA_FILE: '', NODE_EXTRA_CA_CERTS: caFile };
}

export interface WebhookBody {
  name?: string;
  url?: string;
  events?: string[];
  secret?: string;
  headers?: Record<string, string>;
  enabled?: boolean;
}

/** POST /v1/webhooks that must succeed; returns `data`. */
export async function createWebhook(t: TestApp, key: string, body: WebhookBody) {
  const response = await request(t, 'POST', '/v1/webhooks', { key, body: { name: 'hook', ...body } });
  if (response.status !== 201) throw new Error(`webhook creation failed: ${response.status} ${response.text}`);
  return response.body.data as { id: string; secret: string; url: string; events: string[]; headers: Record<string, string> };
}

/** The delivery rows of one webhook, straight from the database. */
export function deliveryRows(t: TestApp, webhookId: string) {
  return t.database.db.selectFrom('deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('id').execute();
}

/** Waits until the webhook's first delivery has succeeded; returns its row. */
export function firstDeliverySucceeded(t: TestApp, webhookId: string, timeoutMs = 30_000) {
  return waitFor(
    async () => {
      const [row] = await deliveryRows(t, webhookId);
      return row?.status === 'success' ? row : undefined;
    },
    timeoutMs,
    'the first delivery to succeed',
  );
}

/** The outbox rows of the given tags. */
export function eventRows(t: TestApp, tagIds: string[]) {
  return t.database.db.selectFrom('events').selectAll().where('tag_id', 'in', tagIds).orderBy('id').execute();
}

/** Waits until every event of these tags has been turned into deliveries by the worker. */
export async function waitDispatched(t: TestApp, tagIds: string[], count: number, timeoutMs = 30_000) {
  return waitFor(
    async () => {
      const rows = await eventRows(t, tagIds);
      return rows.length === count && rows.every((row) => row.dispatched_at !== null) ? rows : undefined;
    },
    timeoutMs,
    `${count} events of ${tagIds.length} tags to be dispatched`,
  );
}

/** Creates `count` tags through the batch endpoint (100 a call); returns their ids in order. */
export async function createTags(t: TestApp, key: string, count: number, prefix = 'tag', baseUrl?: string): Promise<string[]> {
  const ids: string[] = [];
  for (let done = 0; done < count; done += 100) {
    const tags = Array.from({ length: Math.min(100, count - done) }, (_, i) => ({ title: `${prefix} ${done + i}` }));
    const response = await request(t, 'POST', '/v1/tags/batch', { key, body: { tags }, baseUrl });
    if (response.status !== 201) throw new Error(`batch failed: ${response.status} ${response.text}`);
    ids.push(...(response.body.data.tags as Array<{ id: string }>).map((tag) => tag.id));
  }
  return ids;
}

/** Uploads one file to a tag (multipart/form-data, part "file"). */
export function uploadFile(t: TestApp, key: string, tagId: string, filename: string, content: Buffer) {
  const boundary = `----tagsvc-webhooks-${Date.now()}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return request(t, 'POST', `/v1/tags/${tagId}/files`, {
    key,
    rawBody: body,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
}

/**
 * Standard Webhooks signature check done by hand, for secrets that are not `whsec_…`: the
 * secret's UTF-8 bytes as the HMAC-SHA256 key over "{id}.{timestamp}.{body}".
 */
export function expectUtf8Signature(secret: string, received: ReceivedRequest): void {
  const id = received.headers['webhook-id']!;
  const timestamp = received.headers['webhook-timestamp']!;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${id}.${timestamp}.${received.body}`).digest('base64');
  expect(received.headers['webhook-signature']).toBe(`v1,${expected}`);
}

/** A `bin/tagsvc` child process whose output is collected. */
export interface Spawned {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the first match of `pattern` in stdout+stderr; rejects if the process exits first. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends `signal` and waits for the process to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function spawnTagsvc(args: string[], env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, ['bin/tagsvc', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exited = false;
  const listeners = new Set<() => void>();
  const changed = () => listeners.forEach((listener) => listener());
  child.stdout!.on('data', (chunk: Buffer) => ((output += chunk.toString()), changed()));
  child.stderr!.on('data', (chunk: Buffer) => ((output += chunk.toString()), changed()));
  const exit = new Promise<void>((resolve) =>
    child.on('exit', () => {
      exited = true;
      changed();
      resolve();
    }),
  );
  return {
    child,
    output: () => output,
    waitForOutput(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`timed out waiting for ${pattern}: ${output}`)), timeoutMs);
        const check = () => {
          const match = pattern.exec(output);
          if (match) done(undefined, match);
          else if (exited) done(new Error(`tagsvc ${args.join(' ')} exited before ${pattern}: ${output}`));
        };
        function done(error?: Error, match?: RegExpMatchArray) {
          clearTimeout(timer);
          listeners.delete(check);
          if (error) reject(error);
          else resolve(match!);
        }
        listeners.add(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (!exited) child.kill(signal);
      await exit;
    },
  };
}

/** Starts `tagsvc serve` and returns its address. */
export async function spawnServer(env: Record<string, string>): Promise<{ server: Spawned; url: string }> {
  const server = spawnTagsvc(['serve'], { ...env, PORT: '0', LOG_LEVEL: 'info' });
  const match = await server.waitForOutput(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
  return { server, url: match[1]! };
}

/** Receivers a suite starts as it goes (`start`), every one closed by `closeAll` in its afterAll. */
export function receiverPool(): { start(): Promise<Receiver>; closeAll(): Promise<void> } {
  const started: Receiver[] = [];
  return {
    async start() {
      const receiver = await Receiver.start();
      started.push(receiver);
      return receiver;
    },
    closeAll: async () => {
      await Promise.all(started.splice(0).map((receiver) => receiver.close()));
    },
  };
}
