/**
 * A value now, or a promise of it: what a hot path returns when it usually has the answer at
 * once (a cache hit) and only sometimes must wait (a query). Each `await` of a value that was
 * there already still costs a promise and a trip through the microtask queue.
 */
export type MaybePromise<T> = T | Promise<T>;

/**
 * What a route handler that sends its reply itself returns: nothing when it is done, else a
 * promise of being done, whose rejection Fastify answers as it answers a throw.
 */
export function handled(value: MaybePromise<unknown>): Promise<void> | undefined {
  return value instanceof Promise ? value.then(() => undefined) : undefined;
}

/** `next` applied to `value`: at once when it is there, else when it resolves. */
export function andThen<T, U>(value: MaybePromise<T>, next: (resolved: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
