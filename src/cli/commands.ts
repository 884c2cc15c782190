import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { migrateToLatest, openDatabase, type Db } from '../db/database.js';
import * as accounts from '../features/accounts/accounts.service.js';
import { setPassword } from '../features/sessions/index.js';
import { systemClock } from '../lib/clock.js';
import { serve, work } from '../server.js';
import { printResult, UsageError } from './output.js';

type Options = Record<string, { type: 'string' | 'boolean' }>;

export const USAGE = `Usage: tagsvc <command> [options]

  serve [--no-worker]            run the HTTP API (and the worker unless --no-worker)
  worker                         run only the background worker
  migrate                        bring the database schema up to date
  user create --email E --password P --plan free|pro|enterprise
  user set-password --email E --password P   (signs the user out everywhere)
  org create --name N --owner EMAIL --plan pro|enterprise
  org add-member --org ORG_ID --email E --role admin|member
  key create --email E --name N [--permissions all|p1,p2,...] [--test] [--org ORG_ID] [--ip CIDR,...]
  key list --email E
  key disable|enable|regenerate|delete --id KEY_ID

Every command takes --json for machine-readable output. Settings come from the environment
(DATA_DIR, DATABASE_URL, ...), so commands act on the same data as a running server.`;

function parse(args: string[], options: Options, required: string[]) {
  const parsed = parseArgs({ args, options: { ...options, json: { type: 'boolean' } }, strict: true, allowPositionals: false });
  const values = parsed.values as Record<string, string | boolean | undefined>;
  for (const name of required) {
    if (typeof values[name] !== 'string' || values[name] === '') throw new UsageError(`--${name} is required`);
  }
  return values;
}

const str = (value: string | boolean | undefined) => (typeof value === 'string' ? value : undefined);

/** Runs an administrative command against the configured database, then closes it. */
async function withDatabase(action: (db: Db) => Promise<unknown>, json: boolean): Promise<void> {
  const database = await openDatabase(loadConfig());
  try {
    await migrateToLatest(database);
    printResult(await action(database.db), json);
  } finally {
    await database.close();
  }
}

type Handler = (args: string[]) => Promise<void>;

const clock = systemClock;

const handlers: Record<string, Handler> = {
  serve: async (args) => {
    const values = parse(args, { 'no-worker': { type: 'boolean' } }, []);
    await serve(loadConfig(), { worker: !values['no-worker'] });
  },
  worker: async (args) => {
    parse(args, {}, []);
    await work(loadConfig());
  },
  migrate: async (args) => {
    const values = parse(args, {}, []);
    const database = await openDatabase(loadConfig());
    try {
      printResult({ applied: await migrateToLatest(database) }, Boolean(values.json));
    } finally {
      await database.close();
    }
  },
  'user create': async (args) => {
    const v = parse(args, { email: { type: 'string' }, password: { type: 'string' }, plan: { type: 'string' } }, [
      'email',
      'password',
      'plan',
    ]);
    await withDatabase(
      (db) => accounts.createUser(db, clock, { email: str(v.email)!, password: str(v.password)!, plan: str(v.plan)! }),
      Boolean(v.json),
    );
  },
  'user set-password': async (args) => {
    const v = parse(args, { email: { type: 'string' }, password: { type: 'string' } }, ['email', 'password']);
    await withDatabase((db) => setPassword(db, clock, { email: str(v.email)!, password: str(v.password)! }), Boolean(v.json));
  },
  'org create': async (args) => {
    const v = parse(args, { name: { type: 'string' }, owner: { type: 'string' }, plan: { type: 'string' } }, ['name', 'owner', 'plan']);
    await withDatabase(
      (db) => accounts.createOrganization(db, clock, { name: str(v.name)!, ownerEmail: str(v.owner)!, plan: str(v.plan)! }),
      Boolean(v.json),
    );
  },
  'org add-member': async (args) => {
    const v = parse(args, { org: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } }, ['org', 'email', 'role']);
    await withDatabase(
      (db) => accounts.addMember(db, clock, { organizationId: str(v.org)!, email: str(v.email)!, role: str(v.role)! }),
      Boolean(v.json),
    );
  },
  'key create': async (args) => {
    const v = parse(
      args,
      {
        email: { type: 'string' },
        name: { type: 'string' },
        permissions: { type: 'string' },
        test: { type: 'boolean' },
        org: { type: 'string' },
        ip: { type: 'string' },
      },
      ['email', 'name'],
    );
    await withDatabase(
      (db) =>
        accounts.createKey(db, clock, {
          email: str(v.email)!,
          name: str(v.name)!,
          permissions: str(v.permissions),
          test: Boolean(v.test),
          organizationId: str(v.org),
          ip: str(v.ip),
        }),
      Boolean(v.json),
    );
  },
  'key list': async (args) => {
    const v = parse(args, { email: { type: 'string' } }, ['email']);
    await withDatabase((db) => accounts.listKeys(db, str(v.email)!), Boolean(v.json));
  },
  'key disable': keyCommand((db, id) => accounts.setKeyEnabled(db, clock, id, false)),
  'key enable': keyCommand((db, id) => accounts.setKeyEnabled(db, clock, id, true)),
  'key regenerate': keyCommand((db, id) => accounts.regenerateKey(db, clock, id)),
  'key delete': keyCommand((db, id) => accounts.deleteKey(db, id)),
};

function keyCommand(action: (db: Db, id: string) => Promise<unknown>): Handler {
  return async (args) => {
    const v = parse(args, { id: { type: 'string' } }, ['id']);
    await withDatabase((db) => action(db, str(v.id)!), Boolean(v.json));
  };
}

/** Finds the handler for `argv` (one- or two-word command names) and the arguments left for it. */
export function resolveCommand(argv: string[]): { handler: Handler; args: string[] } {
  const two = argv.slice(0, 2).join(' ');
  if (handlers[two]) return { handler: handlers[two], args: argv.slice(2) };
  const one = argv[0] ?? '';
  if (handlers[one]) return { handler: handlers[one], args: argv.slice(1) };
  throw new UsageError(one ? `unknown command "${argv.slice(0, 2).join(' ')}"` : 'no command given');
}
