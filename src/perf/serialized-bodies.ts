import type { FastifyReply } from 'fastify';
import { andThen, handled, type MaybePromise } from '../lib/maybe-promise.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * 200 bodies of one route, serialized once per value they are built from. For values the
 * exact caches (perf/exact-cache.ts) hand out: the same object for as long as nothing changed,
 * a new one after any change, and never mutated. Keyed weakly, so a body lives exactly as long
 * as its value is cached; a value that is not cached (PostgreSQL) is simply serialized anew.
 * The bytes sent are the same, made by the same compiled serializer.
 */
export class SerializedBodies<V extends object> {
  private readonly bodies = new WeakMap<V, Buffer>();

  /** `envelope` builds the route's response (what the handler would return) from the value. */
  constructor(private readonly envelope: (value: V) => { [key: string]: unknown }) {}

  /**
   * Sends the body of `value`, at once when it is there: a handler that returns this need not be
   * async, and a cached value is answered without a trip through the microtask queue.
   */
  sendWhenReady(reply: FastifyReply, value: MaybePromise<V>): Promise<void> | undefined {
    return handled(andThen(value, (resolved) => this.send(reply, resolved)));
  }

  private send(reply: FastifyReply, value: V): FastifyReply {
    let body = this.bodies.get(value);
    if (!body) {
      body = Buffer.from(serializer(reply)(this.envelope(value)));
      this.bodies.set(value, body);
    }
    // A Buffer is sent as it is; the content type is the one Fastify gives serialized JSON.
    return reply.type(JSON_TYPE).send(body);
  }
}

function serializer(reply: FastifyReply): (payload: { [key: string]: unknown }) => string {
  const serialize = reply.getSerializationFunction('200');
  if (!serialize) throw new Error(`${reply.request.routeOptions.url} has no 200 response schema to serialize with`);
  return serialize;
}
