import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { describeOnce } from '../helpers/harness.js';
import { spawnTagsvc } from '../webhooks/support.js';

const dataDir = mkdtempSync(join(tmpdir(), 'tagsvc-request-log-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const KEY = 'svc_live_ThisIsNotARealKeyButLooksLikeOne0123456789';
/** The shape of a shared report's token (features/shares): a bearer secret in the path. */
const STATS_TOKEN = 'ThisIsNotARealShareTokenButLooksLikeOne0123';

interface Answered {
  requestId: string;
  status: number;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function untilAnswering(url: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await (await fetch(`${url}/readyz`)).arrayBuffer();
      return;
    } catch (error) {
      if (attempt === 150) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Starts `serve` at LOG_LEVEL `level`, makes a few requests (a health check with a query string,
 * an API call with a key that does not exist, a path that matches no route, a shared report's
 * address with a token of no share) and returns their
 * answers and the log's JSON lines up to the shutdown.
 */
async function requestLog(level: string): Promise<{ answered: Answered[]; lines: Array<Record<string, unknown>>; raw: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawnTagsvc(['serve', '--no-worker'], { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: level });
  try {
    await untilAnswering(url);
    const answered: Answered[] = [];
    for (const [path, headers] of [
      ['/healthz?token=query-secret', {}],
      ['/v1/me', { authorization: `Bearer ${KEY}` }],
      ['/no/such/path', {}],
      [`/stats/${STATS_TOKEN}`, {}],
    ] as const) {
      const response = await fetch(`${url}${path}`, { headers });
      await response.arrayBuffer();
      answered.push({ requestId: response.headers.get('x-request-id')!, status: response.status });
    }
    // Once the process has closed its output, every line it wrote has arrived.
    const closed = new Promise((resolve) => server.child.once('close', resolve));
    server.child.kill('SIGTERM');
    await closed;
    const raw = server.output();
    const lines = raw
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    return { answered, lines, raw };
  } finally {
    await server.stop();
  }
}

describeOnce('the request log', () => {
  it('at info: one line per request, with its request id, path, masked address and status, and no secret', async () => {
    const { answered, lines, raw } = await requestLog('info');
    expect(answered.map((a) => a.status)).toEqual([200, 401, 404, 404]);
    for (const { requestId, status } of answered) {
      const completed = lines.filter((line) => line.request_id === requestId && line.msg === 'request completed');
      expect(completed).toHaveLength(1);
      expect(completed[0]!.res).toEqual({ status });
      expect((completed[0]!.req as { ip: string }).ip).toBe('127.0.0.xxx');
    }
    const paths = answered.map(({ requestId }) => {
      const line = lines.find((l) => l.request_id === requestId && l.msg === 'request completed')!;
      return (line.req as { path: string }).path;
    });
    expect(paths).toEqual(['/healthz', '/v1/me', '/no/such/path', '/stats/[redacted]']);
    // No debug line at info, and neither the key nor the query string reach the log.
    expect(lines.some((line) => line.msg === 'incoming request')).toBe(false);
    expect(raw).not.toContain(KEY);
    expect(raw).not.toContain('query-secret');
    expect(raw).not.toContain(STATS_TOKEN);
  });

  it('at debug: each request also logs its arrival, under the same request id', async () => {
    const { answered, lines } = await requestLog('debug');
    for (const { requestId } of answered) {
      const messages = lines.filter((line) => line.request_id === requestId).map((line) => line.msg);
      expect(messages).toEqual(['incoming request', 'request completed']);
    }
  });

  it('at warn: a request that succeeds or is refused writes nothing', async () => {
    const { answered, lines } = await requestLog('warn');
    expect(answered.map((a) => a.status)).toEqual([200, 401, 404, 404]);
    expect(lines.filter((line) => 'request_id' in line)).toEqual([]);
  });
});
