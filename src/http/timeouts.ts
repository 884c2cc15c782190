import type { ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { sendError } from './error-handler.js';

type Timeouts = Pick<Config, 'headersTimeoutMs' | 'idleTimeoutMs' | 'keepAliveTimeoutMs'>;

/**
 * The server's own timeouts, for Fastify's options: a slow or stalled client holds a socket and
 * its memory, never the thread, so others are not slowed; these bound how long it holds them.
 *
 * - `headersTimeoutMs`: the request line and headers must arrive within it (Node answers 408
 *   through clientError, error-handler.ts). Node checks it on an interval, every second here.
 * - `idleTimeoutMs`: no byte may stand still longer on a socket with a request in progress
 *   (watchIdleSockets below decides what that means).
 * - `keepAliveTimeoutMs`: an idle keep-alive connection is closed after it.
 */
export function timeoutOptions(config: Timeouts): {
  connectionTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
} {
  return {
    connectionTimeout: config.idleTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs) },
  };
}

/**
 * What happens when a socket has been still for `idleTimeoutMs` (Node's socket timeout). The
 * function returned records each request's reply against its socket:
 *
 * - a request whose body stopped arriving (a stalled upload): answered 408 `request_timeout` and
 *   the connection closed, which aborts the body's stream, so the handler reading it removes its
 *   temp file;
 * - a response the client stopped reading (a download, an export): the connection is closed,
 *   which ends the stream feeding it and releases what it held (a file handle, a cursor);
 * - no request in progress (a keep-alive connection between requests, a connection that sent
 *   nothing): closed; one whose first request's headers are still arriving is left to
 *   `headersTimeoutMs`, which answers it 408;
 * - a request fully received whose answer is being prepared: left alone; the server's own waits
 *   are bounded (DEPENDENCY_TIMEOUT), and the answer's first bytes start the clock again.
 */
export function watchIdleSockets(app: FastifyInstance): (request: FastifyRequest, reply: FastifyReply) => void {
  const inProgress = new WeakMap<Socket, FastifyReply>();
  app.server.on('timeout', (socket: Socket) => {
    const reply = inProgress.get(socket);
    // Bytes of a first request whose headers are not complete: HEADERS_TIMEOUT answers those 408.
    if (!reply && socket.bytesRead > 0) return;
    if (!reply || reply.raw.headersSent) return socket.destroy();
    if (reply.request.raw.complete) return;
    // Through Fastify, so the answer carries its request id and gets its access-log line.
    reply.header('connection', 'close');
    sendError(reply.request, reply, new ApiError('request_timeout', 'The request body stopped arriving; send it again'));
    // Destroying the request, not only its socket, marks its body aborted: the handler still
    // reading it (an upload's stream) fails at once and removes what it wrote.
    reply.raw.once('finish', () => reply.request.raw.destroy(new Error('the request body stopped arriving')));
  });
  // Called by the hook every request already runs (app.ts), not a hook of its own: a hook
  // costs every request, a public page's most of all (src/perf/README.md).
  return (request, reply) => inProgress.set(request.raw.socket, reply);
}
