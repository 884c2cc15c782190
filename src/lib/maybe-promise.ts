/**
 * A value now, or a promise of it: what a hot path returns when it usually has the answer at
 * once (a cache hit) and only sometimes must wait (a query). Each `await` of a value that was
 * there already still costs a promise and a trip through the microtask queue.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `next` applied to `value`: at once when it is there, else when it resolves. */
export function andThen<T, U>(value: MaybePromise<T>, next: (resolved: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
