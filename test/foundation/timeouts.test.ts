import net from 'node:net';
import { join } from 'node:path';
import pino from 'pino';
import { expect, it } from 'vitest';
import { request, type Account, type TestApp } from '../helpers/app.js';
import { describeOnce, useAccount, useApp } from '../helpers/harness.js';
import { waitFor } from '../helpers/receiver.js';
import { createTag, filesUnder, multipart, upload } from '../files/helpers.js';

/** A raw connection to the test server: what it sends is under the test's control, byte by byte. */
class RawClient {
  readonly received: Buffer[] = [];
  closed = false;
  readonly ended: Promise<void>;

  constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => this.received.push(chunk));
    socket.on('error', () => undefined);
    this.ended = new Promise((resolve) =>
      socket.once('close', () => {
        this.closed = true;
        resolve();
      }),
    );
  }

  static async open(t: TestApp): Promise<RawClient> {
    const { port } = new URL(t.baseUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    return new RawClient(socket);
  }

  get text(): string {
    return Buffer.concat(this.received).toString('latin1');
  }

  /** The status and the JSON body of the first response received. */
  response(): { status: number; body: { error?: { code: string; request_id: string } } } {
    const [head = '', body = ''] = this.text.split('\r\n\r\n');
    return { status: Number(head.split(' ')[1]), body: JSON.parse(body) };
  }
}

/** A 2 MB upload of which only the first 256 kB are sent. */
async function startUpload(t: TestApp, account: Account, tagId: string): Promise<RawClient> {
  const { body, contentType } = multipart([{ name: 'file', filename: 'big.txt', content: Buffer.alloc(2 * 1024 * 1024, 'a') }]);
  const client = await RawClient.open(t);
  client.socket.write(
    `POST /v1/tags/${tagId}/files HTTP/1.1\r\nHost: tagsvc.test\r\nAuthorization: Bearer ${account.key}\r\n` +
      `Content-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  client.socket.write(body.subarray(0, 256 * 1024));
  return client;
}

/** Connections the test server holds open. */
function openConnections(t: TestApp): Promise<number> {
  return new Promise((resolve, reject) => t.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

describeOnce('timeouts for slow and stalled clients', () => {
  const IDLE_MS = 500;
  const t = useApp({ env: { HEADERS_TIMEOUT: '700ms', IDLE_TIMEOUT: `${IDLE_MS}ms`, KEEP_ALIVE_TIMEOUT: '300ms' } });
  const account = useAccount(t);

  it('headers that stop arriving are answered 408 request_timeout, and the connection closed', async () => {
    const client = await RawClient.open(t);
    client.socket.write('GET /v1/me HTTP/1.1\r\nHost: tagsvc.test\r\nX-Slow: ');
    await client.ended;
    const response = client.response();
    expect(response.status).toBe(408);
    expect(response.body.error?.code).toBe('request_timeout');
  });

  it('a JSON body that stops arriving is answered 408 with the request id', async () => {
    const client = await RawClient.open(t);
    client.socket.write(
      `POST /v1/tags HTTP/1.1\r\nHost: tagsvc.test\r\nAuthorization: Bearer ${account.key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"title": "sl',
    );
    await client.ended;
    const response = client.response();
    expect(response.status).toBe(408);
    expect(response.body.error?.code).toBe('request_timeout');
    expect(client.text).toContain(`x-request-id: ${response.body.error?.request_id}`);
  });

  it('an upload that stalls is answered 408 and leaves no temp file', async () => {
    const tag = await createTag(t, account.key);
    const client = await startUpload(t, account, tag.id);
    await client.ended;
    expect(client.response().status).toBe(408);
    const tmp = join(t.config.dataDir, 'files', 'tmp');
    await waitFor(() => filesUnder(tmp).length === 0, 5000, 'the temp file to be removed');
    const listed = await request(t, 'GET', `/v1/tags/${tag.id}/files`, { key: account.key });
    expect(listed.body.data).toEqual([]);
  });

  it('a download the client stops reading is ended, and the connection closed', async () => {
    const tag = await createTag(t, account.key);
    const uploaded = await upload(t, account.key, tag.id, 'big.txt', Buffer.alloc(16 * 1024 * 1024, 'b'));
    expect(uploaded.status).toBe(201);
    const client = await RawClient.open(t);
    client.socket.pause();
    client.socket.write(
      `GET /v1/files/${uploaded.body.data.id}/download HTTP/1.1\r\nHost: tagsvc.test\r\nAuthorization: Bearer ${account.key}\r\n\r\n`,
    );
    // The server's side closes while the client reads nothing (the test's other connections,
    // idle keep-alives, close within KEEP_ALIVE_TIMEOUT).
    await waitFor(async () => (await openConnections(t)) === 0, 10_000, 'the server to close the stalled download');
    client.socket.resume();
    await client.ended;
    expect(Buffer.concat(client.received).length).toBeLessThan(16 * 1024 * 1024);
    // The server is free for others all along, and after.
    expect((await request(t, 'GET', '/v1/me', { key: account.key })).status).toBe(200);
  });

  it('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT', async () => {
    const client = await RawClient.open(t);
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: tagsvc.test\r\n\r\n');
    await waitFor(() => client.text.includes('"ok"'), 5000, 'the health answer');
    await client.ended;
    expect(client.text.match(/HTTP\/1\.1/g)).toHaveLength(1);
  });

  it('200 stalled clients are all cut while others are answered as usual', async () => {
    const stalled = await Promise.all(
      Array.from({ length: 200 }, async () => {
        const client = await RawClient.open(t);
        client.socket.write(
          'POST /dashboard/signin HTTP/1.1\r\nHost: tagsvc.test\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 50\r\n\r\nemail=',
        );
        return client;
      }),
    );
    const answered = await Promise.all(Array.from({ length: 50 }, () => request(t, 'GET', '/v1/me', { key: account.key })));
    expect(answered.map((response) => response.status)).toEqual(Array(50).fill(200));
    await Promise.all(stalled.map((client) => client.ended));
    expect(stalled.map((client) => client.response().status)).toEqual(Array(200).fill(408));
  });
});

describeOnce('a request its client abandons', () => {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const t = useApp({ log });
  const account = useAccount(t);

  it('an upload cut off mid-body gets an access-log line, no "unhandled error", and no temp file', async () => {
    const tag = await createTag(t, account.key);
    const client = await startUpload(t, account, tag.id);
    await waitFor(() => filesUnder(join(t.config.dataDir, 'files', 'tmp')).length > 0, 5000, 'the upload to begin');
    client.socket.destroy();
    await waitFor(() => filesUnder(join(t.config.dataDir, 'files', 'tmp')).length === 0, 5000, 'the temp file to be removed');
    // The temp file goes as the body stream ends, before the error reaches the handler that logs.
    const aborted = await waitFor(
      () => lines.find((line) => line.msg === 'request aborted by the client'),
      5000,
      "the aborted request's access-log line",
    );
    expect(aborted.request_id).toMatch(/^req_/);
    expect(lines.filter((line) => line.msg === 'unhandled error')).toEqual([]);
  });
});
