import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

let waiting: HookHandlerDoneFunction[] = [];

function handleWaiting(): void {
  const ready = waiting;
  waiting = [];
  let failure: { error: unknown } | undefined;
  for (const done of ready) {
    try {
      done();
    } catch (error) {
      failure ??= { error };
    }
  }
  // A throw is Fastify's own bug, not a request's: the others still go on, then it surfaces.
  if (failure) throw failure.error;
}

/**
 * The first onRequest hook of the application: every request read in one turn of the event
 * loop waits for that turn's check phase (setImmediate), and they are then handled one after
 * another. Handling each request inline, in its socket's read callback, interleaved the whole
 * request path with reads, writes and their wake-ups; handled in a batch, the same work takes
 * much less CPU under load (figures in README.md). At low load a request waits only for the
 * I/O callbacks already due in its turn. PostgreSQL's change-feed fences had been batching
 * requests the same way, which is why its reads cost less than SQLite's.
 */
export function handleInTurnBatches(_request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (waiting.push(done) === 1) setImmediate(handleWaiting);
}
