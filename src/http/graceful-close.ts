import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** How long requests in flight when the server closes get to finish before their connections are cut. */
const CLOSE_GRACE_MS = 10_000;

/** How often, while the server closes, connections whose last response has gone out are closed. */
const IDLE_SWEEP_MS = 50;

/**
 * Lets app.close() end once the requests in flight have been answered. Node's server.close()
 * closes only the connections idle at that moment, then waits for every other one to end, and
 * it counts as busy a connection that has not sent a byte yet: a browser's preconnected socket
 * or a proxy's spare connection holds shutdown for as long as its client keeps it open. So, as
 * the server closes, those connections are closed at once; each other one as soon as its
 * response has gone out; and whatever is still open after `graceMs` is cut.
 */
export function closeConnectionsOnClose(app: FastifyInstance, graceMs = CLOSE_GRACE_MS): void {
  // Per connection, never per request: the connections open now, for the moment of closing.
  const connections = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  app.addHook('preClose', (done) => {
    const server = app.server;
    for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    server.once('close', () => {
      clearInterval(sweep);
      clearTimeout(cut);
    });
    done();
  });
}
