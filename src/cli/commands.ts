import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import type { ServiceContext } from '../context.js';
import { migrateToLatest, openDatabase } from '../db/database.js';
import * as accounts from '../features/accounts/index.js';
import { OPERATOR } from '../features/accounts/index.js';
import { setPassword } from '../features/accounts/index.js';
import { serve, work } from '../server.js';
import { createServices } from '../services.js';
import { printResult, UsageError } from './output.js';
import pino from 'pino';

/** Administrative commands print their result; the services' own log lines would only get in the way. */
const silentLog = pino({ level: 'silent' });

type Options = Record<string, { type: 'string' | 'boolean' }>;

export const USAGE = `Usage: tagsvc <command> [options]

  serve [--no-worker]            run the HTTP API (and the worker unless --no-worker)
  worker                         run only the background worker
  migrate                        bring the database schema up to date
  user create --email E --password P --plan free|pro|enterprise
  user set-password --email E --password P   (signs the user out everywhere)
  user disable|enable --email E  (disabled: no sign-in, sessions end, API keys refused)
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

/** Runs an administrative command, as the operator, on the configured services, then closes them. */
async function withServices(action: (ctx: ServiceContext) => Promise<unknown>, json: boolean): Promise<void> {
  const services = await createServices(loadConfig(), { log: silentLog });
  try {
    printResult(await action(services), json);
  } finally {
    await services.close();
  }
}

type Handler = (args: string[]) => Promise<void>;

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
    await withServices(
      (ctx) => accounts.createUser(ctx, OPERATOR, { email: str(v.email)!, password: str(v.password)!, plan: str(v.plan)! }),
      Boolean(v.json),
    );
  },
  'user set-password': async (args) => {
    const v = parse(args, { email: { type: 'string' }, password: { type: 'string' } }, ['email', 'password']);
    await withServices((ctx) => setPassword(ctx, OPERATOR, { email: str(v.email)!, password: str(v.password)! }), Boolean(v.json));
  },
  'user disable': userDisabledCommand(true),
  'user enable': userDisabledCommand(false),
  'org create': async (args) => {
    const v = parse(args, { name: { type: 'string' }, owner: { type: 'string' }, plan: { type: 'string' } }, ['name', 'owner', 'plan']);
    await withServices(
      (ctx) => accounts.createOrganization(ctx, OPERATOR, { name: str(v.name)!, ownerEmail: str(v.owner)!, plan: str(v.plan)! }),
      Boolean(v.json),
    );
  },
  'org add-member': async (args) => {
    const v = parse(args, { org: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } }, ['org', 'email', 'role']);
    await withServices(
      (ctx) => accounts.addMember(ctx, OPERATOR, { organizationId: str(v.org)!, email: str(v.email)!, role: str(v.role)! }),
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
    await withServices(
      (ctx) =>
        accounts.createKey(ctx, OPERATOR, {
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
    await withServices((ctx) => accounts.listKeys(ctx, OPERATOR, { email: str(v.email)! }), Boolean(v.json));
  },
  'key disable': keyCommand((ctx, id) => accounts.setKeyEnabled(ctx, OPERATOR, { id, enabled: false })),
  'key enable': keyCommand((ctx, id) => accounts.setKeyEnabled(ctx, OPERATOR, { id, enabled: true })),
  'key regenerate': keyCommand((ctx, id) => accounts.regenerateKey(ctx, OPERATOR, { id })),
  'key delete': keyCommand((ctx, id) => accounts.deleteKey(ctx, OPERATOR, { id })),
};

function userDisabledCommand(disabled: boolean): Handler {
  return async (args) => {
    const v = parse(args, { email: { type: 'string' } }, ['email']);
    await withServices((ctx) => accounts.setUserDisabled(ctx, OPERATOR, { email: str(v.email)!, disabled }), Boolean(v.json));
  };
}

function keyCommand(action: (ctx: ServiceContext, id: string) => Promise<unknown>): Handler {
  return async (args) => {
    const v = parse(args, { id: { type: 'string' } }, ['id']);
    await withServices((ctx) => action(ctx, str(v.id)!), Boolean(v.json));
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
