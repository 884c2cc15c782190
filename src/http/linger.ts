import type { FastifyReply, FastifyRequest } from 'fastify';

const LINGER_MS = 2000;

/**
 * Answers a request whose body will not be read to its end (an upload refused mid-stream) and
 * closes the connection without resetting it. Closing a socket with unread data makes the
 * kernel send a reset, and a client still sending may then lose the answer itself; so the
 * write side is closed first and whatever still arrives is discarded for a short while
 * (a "lingering close", as HTTP servers such as nginx do), then the socket is destroyed.
 */
export function closeAfterResponse(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('connection', 'close');
  const socket = request.raw.socket;
  // Node's server calls destroySoon() once a `Connection: close` response is finished.
  socket.destroySoon = () => {
    socket.end();
    socket.resume();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
