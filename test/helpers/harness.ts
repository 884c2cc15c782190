import { afterAll, beforeAll, describe } from 'vitest';
import { createAccount, startTestApp, type Account, type TestApp, type TestAppOptions } from './app.js';

/**
 * The test harness: `useApp` and `useAccount` are called where a suite is declared (a file's top
 * level or a `describe`), and register the hooks that start and stop what they give:
 *
 *   const t = useApp({ worker: true });
 *   const alice = useAccount(t, 'enterprise');
 *   it('…', async () => expect((await request(t, 'GET', '/v1/me', { key: alice.key })).status).toBe(200));
 *
 * `useApp` starts a test app before the suite's tests and closes it after them. What it returns
 * is that app, read through: every helper that takes a TestApp takes it, inside tests and hooks.
 * Options known only once the suite's own earlier hooks have run (a directory, a proxy's port) or
 * that need awaiting (a receiver's certificate) are given as a function, called then.
 */
export function useApp(options: TestAppOptions | (() => TestAppOptions | Promise<TestAppOptions>) = {}): TestApp {
  let started: TestApp | undefined;
  beforeAll(async () => {
    started = await startTestApp(typeof options === 'function' ? await options() : options);
  });
  afterAll(() => close());
  const running = (): TestApp => {
    if (!started) throw new Error('the test app runs from beforeAll to afterAll: use it inside tests and hooks');
    return started;
  };
  // A test that stops the app itself leaves afterAll nothing to do.
  const close = async () => {
    const app = started;
    started = undefined;
    await app?.close();
  };
  const handle = { close } as TestApp;
  for (const field of Object.keys(READ_THROUGH) as Array<keyof typeof READ_THROUGH>) {
    Object.defineProperty(handle, field, { enumerable: true, get: () => running()[field] });
  }
  return handle;
}

/** The fields of a TestApp that useApp's handle reads from the running app: all but close. */
const READ_THROUGH = {
  app: true,
  config: true,
  services: true,
  database: true,
  clock: true,
  baseUrl: true,
  env: true,
} satisfies Record<Exclude<keyof TestApp, 'close'>, true>;

/**
 * An account on `plan` created on `t` before the suite's tests (after the app has started), for
 * the tests that share it; its fields are there from then on.
 */
export function useAccount(t: TestApp, plan?: 'free' | 'pro' | 'enterprise'): Account {
  const account = {} as Account;
  beforeAll(async () => {
    Object.assign(account, await createAccount(t, plan));
  });
  return account;
}

/**
 * A suite about what no database decides (a command's arguments, help and output, the HTTP
 * layer's limits and logs, start-up checks of the settings): it runs on SQLite and is skipped
 * where TEST_DATABASE_URL points the tests at PostgreSQL, so CI runs it once, not on both legs.
 */
export const describeOnce = describe.skipIf(Boolean(process.env.TEST_DATABASE_URL));
