import { once } from 'node:events';
import http from 'node:http';
import net, { type Socket } from 'node:net';
import { setImmediate } from 'node:timers/promises';
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { closeConnectionsOnClose } from '../../src/http/graceful-close.js';
import { startTestApp } from '../helpers/app.js';

/** A route that answers only when its gate opens, and says when a request has reached it. */
function gatedRoute() {
  let open!: () => void;
  let arrived!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  const register = (app: FastifyInstance) => {
    app.get('/test/gated', async () => {
      arrived();
      await gate;
      return { answered: true };
    });
  };
  return { register, open, reached };
}

/** GET on a keep-alive connection: the answer (or the error that ended it) and the socket's close. */
function keepAliveGet(url: string) {
  const agent = new http.Agent({ keepAlive: true });
  let socketClosed!: Promise<void>;
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.on('socket', (socket: Socket) => {
      socketClosed = new Promise((resolve) => socket.once('close', () => resolve()));
    });
  });
  return { answer, socketClosed: () => socketClosed, agent };
}

describe('closing the server', () => {
  it('answers the request in flight, closes its keep-alive connection and a silent one, and finishes closing', async () => {
    const route = gatedRoute();
    const t = await startTestApp({ extend: route.register });
    // A connection that sends nothing, as a browser's preconnected socket.
    const silent = net.connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
    await once(silent, 'connect');
    const silentClosed = once(silent, 'close');
    const get = keepAliveGet(`${t.baseUrl}/test/gated`);
    await route.reached;

    const closing = t.close();
    // Answered only once the server has stopped listening: Node's close() has then been called.
    while (t.app.server.listening) await setImmediate();
    route.open();
    await expect(get.answer).resolves.toEqual({ status: 200, body: JSON.stringify({ answered: true }) });
    // Without closing both connections, this waits for the keep-alive timeout (72 s), and for the
    // silent one for as long as its client keeps it open.
    await closing;
    await get.socketClosed();
    await silentClosed;
    get.agent.destroy();
  });

  /** A bare Fastify app with closeConnectionsOnClose(graceMs) and the gated route, listening. */
  async function bareApp(graceMs: number, route: ReturnType<typeof gatedRoute>) {
    const app = Fastify();
    closeConnectionsOnClose(app, graceMs);
    route.register(app);
    return { app, url: await app.listen({ port: 0, host: '127.0.0.1' }) };
  }

  it('closes a keep-alive connection as soon as its answer has gone out, long before the grace period ends', async () => {
    const route = gatedRoute();
    const { app, url } = await bareApp(10 * 60_000, route);
    const get = keepAliveGet(`${url}/test/gated`);
    await route.reached;
    const closing = app.close();
    while (app.server.listening) await setImmediate();
    route.open();
    await expect(get.answer).resolves.toMatchObject({ status: 200 });
    await closing;
    await get.socketClosed();
    get.agent.destroy();
  });

  it('cuts a request still unanswered when the grace period ends', async () => {
    const route = gatedRoute();
    const { app, url } = await bareApp(200, route);
    const get = keepAliveGet(`${url}/test/gated`);
    await route.reached;
    await app.close();
    await expect(get.answer).rejects.toThrow(/socket hang up|ECONNRESET/);
    route.open();
    get.agent.destroy();
  });
});
