import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { loadConfig } from '../config.js';
import type { ServiceContext } from '../context.js';
import { addBackupCommands } from './backup-commands.js';
import { addDatabaseCommands } from './db-copy.js';
import { addFilesCommands } from './files-copy.js';
import { fromCommander, printResult, UsageError } from './output.js';
import { readPassword } from './password.js';

/**
 * The server and the services are imported only when a command runs them, so `--help`,
 * `--version`, misuse and a bad setting (the configuration is read first) answer at once
 * instead of loading the whole service first.
 */
type Accounts = typeof import('../features/accounts/index.js');

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

type Options = Record<string, string | boolean | undefined>;

const ENVIRONMENT_NOTE = `
Settings come from the environment (DATA_DIR, DATABASE_URL, ...), as for the server, so
commands act on the same data as a running server. Exit codes: 0 ok, 1 failed, 2 misuse.
Passwords are read from standard input or asked for in a terminal, never taken as arguments.`;

const PASSWORD_IN_ARGUMENTS =
  '--password is not accepted: a password in the arguments is kept in shell history and shown to every user by ps. ' +
  'Pipe it in (--password-stdin), or run the command in a terminal to be asked for it';

/** The command's name as typed after `tagsvc`, e.g. `key create`. */
function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Runs an administrative command, as the operator, on the configured services, then closes them. */
async function withServices(action: (ctx: ServiceContext, accounts: Accounts) => Promise<unknown>, json: boolean): Promise<void> {
  const config = loadConfig();
  const [{ createServices }, accounts, { default: pino }] = await Promise.all([
    import('../services.js'),
    import('../features/accounts/index.js'),
    import('pino'),
  ]);
  // Administrative commands print their result; the services' own log lines would only get in the way.
  const services = await createServices(config, { log: pino({ level: 'silent' }), command: true });
  try {
    printResult(await action(services, accounts), json);
  } finally {
    await services.close();
  }
}

/**
 * A subcommand whose action runs on the services as the operator and prints what it returns.
 * `readInput` gets what the action needs from outside its options (a password) before the
 * database is opened, so a prompt holds no connection while someone types.
 */
function operatorCommand<Input = undefined>(
  parent: Command,
  name: string,
  description: string,
  action: (ctx: ServiceContext, options: Options, accounts: Accounts, input: Input) => Promise<unknown>,
  readInput?: (options: Options, command: Command) => Promise<Input>,
): Command {
  return parent
    .command(name)
    .description(description)
    .action(async (options: Options, command: Command) => {
      const input = (await readInput?.(options, command)) as Input;
      const json = Boolean(command.optsWithGlobals<Options>().json);
      await withServices((ctx, accounts) => action(ctx, options, accounts, input), json);
    });
}

/** The password options of `user create` and `user set-password`; `--password` only to refuse it clearly. */
function withPasswordInput(command: Command): Command {
  return command
    .option('--password-stdin', 'read the password from standard input (the default when input is piped)')
    .addOption(new Option('--password [password]').hideHelp());
}

async function passwordOf(options: Options, command: Command): Promise<string> {
  if (options.password !== undefined) throw new UsageError(PASSWORD_IN_ARGUMENTS, pathOf(command));
  return readPassword({ stdin: Boolean(options.passwordStdin), command: pathOf(command) });
}

function addUserCommands(program: Command): void {
  const user = program.command('user').description('create users, set passwords, reset two-factor sign-in, disable and enable users');
  withPasswordInput(
    operatorCommand(
      user,
      'create',
      'create a user (asks for the password, or reads it from standard input)',
      (ctx, o, accounts, password) =>
        accounts.createUser(ctx, accounts.OPERATOR, { email: String(o.email), password, plan: String(o.plan) }),
      passwordOf,
    )
      .requiredOption('--email <email>', 'the user’s email address, unique')
      .requiredOption('--plan <plan>', 'free, pro or enterprise'),
  );
  withPasswordInput(
    operatorCommand(
      user,
      'set-password',
      'set a user’s password and sign them out everywhere',
      (ctx, o, accounts, password) => accounts.setPassword(ctx, accounts.OPERATOR, { email: String(o.email), password }),
      passwordOf,
    ).requiredOption('--email <email>', 'the user’s email address'),
  );
  operatorCommand(
    user,
    'reset-two-factor',
    'turn off a user’s two-factor sign-in (a lost phone and recovery codes): app, passkeys and recovery codes go, sessions end',
    (ctx, o, accounts) => accounts.resetTwoFactor(ctx, accounts.OPERATOR, { email: String(o.email) }),
  ).requiredOption('--email <email>', 'the user’s email address');
  for (const [name, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    const description = disabled ? 'disable a user: no sign-in, sessions end, API keys refused' : 'enable a disabled user again';
    operatorCommand(user, name, description, (ctx, o, accounts) =>
      accounts.setUserDisabled(ctx, accounts.OPERATOR, { email: String(o.email), disabled }),
    ).requiredOption('--email <email>', 'the user’s email address');
  }
}

function addOrganizationCommands(program: Command): void {
  const org = program.command('org').description('create organizations and add members');
  operatorCommand(org, 'create', 'create an organization owned by an existing user', (ctx, o, accounts) =>
    accounts.createOrganization(ctx, accounts.OPERATOR, { name: String(o.name), ownerEmail: String(o.owner), plan: String(o.plan) }),
  )
    .requiredOption('--name <name>', 'the organization’s name, 1–255 characters')
    .requiredOption('--owner <email>', 'the owner’s email address')
    .requiredOption('--plan <plan>', 'pro or enterprise');
  operatorCommand(org, 'add-member', 'add a user to an organization, or change their role', (ctx, o, accounts) =>
    accounts.addMember(ctx, accounts.OPERATOR, { organizationId: String(o.org), email: String(o.email), role: String(o.role) }),
  )
    .requiredOption('--org <id>', 'the organization’s id (org_…)')
    .requiredOption('--email <email>', 'the user’s email address')
    .requiredOption('--role <role>', 'admin, editor or viewer');
}

function addKeyCommands(program: Command): void {
  const key = program.command('key').description('create, list, disable, enable, regenerate and delete API keys');
  operatorCommand(key, 'create', 'create an API key; its value is printed only this once', (ctx, o, accounts) =>
    accounts.createKey(ctx, accounts.OPERATOR, {
      email: String(o.email),
      name: String(o.name),
      permissions: o.permissions as string | undefined,
      test: Boolean(o.test),
      organizationId: o.org as string | undefined,
      ip: o.ip as string | undefined,
    }),
  )
    .requiredOption('--email <email>', 'the user the key belongs to')
    .requiredOption('--name <name>', 'the key’s name, 1–255 characters')
    .option('--permissions <list>', 'all, or a comma-separated list such as tags:read,files:read', 'all')
    .option('--test', 'a sandbox key (svc_test_…) instead of a live key')
    .option('--org <id>', 'an organization key; the user must be its owner or an admin')
    .option('--ip <list>', 'comma-separated addresses or CIDR ranges the key may be used from');
  operatorCommand(key, 'list', 'list a user’s keys by display prefix (never values or hashes)', (ctx, o, accounts) =>
    accounts.listKeys(ctx, accounts.OPERATOR, { email: String(o.email) }),
  ).requiredOption('--email <email>', 'the user whose keys to list');
  const byId: Array<[string, string, (ctx: ServiceContext, id: string, accounts: Accounts) => Promise<unknown>]> = [
    ['disable', 'turn a key off from the next request on', (ctx, id, a) => a.setKeyEnabled(ctx, a.OPERATOR, { id, enabled: false })],
    ['enable', 'turn a disabled key back on', (ctx, id, a) => a.setKeyEnabled(ctx, a.OPERATOR, { id, enabled: true })],
    ['regenerate', 'give a key a new value, printed only this once', (ctx, id, a) => a.regenerateKey(ctx, a.OPERATOR, { id })],
    ['delete', 'delete a key for good', (ctx, id, a) => a.deleteKey(ctx, a.OPERATOR, { id })],
  ];
  for (const [name, description, action] of byId) {
    operatorCommand(key, name, description, (ctx, o, accounts) => action(ctx, String(o.id), accounts)).requiredOption(
      '--id <id>',
      'the key’s id (key_…)',
    );
  }
}

function addSecretCommands(program: Command): void {
  const secrets = program.command('secrets').description('re-encrypt the stored secrets after SECRET_KEY changes');
  operatorCommand(
    secrets,
    'rotate',
    're-encrypt every webhook signing secret and authenticator secret with the current SECRET_KEY (then SECRET_KEY_PREVIOUS can go); prints how many',
    async (ctx, _options, accounts) => ({
      ...(await (await import('../features/webhooks/index.js')).resealWebhookSecrets(ctx)),
      ...(await accounts.resealTotpSecrets(ctx)),
    }),
  );
}

function addProcessCommands(program: Command): void {
  program
    .command('serve')
    .description('run the HTTP API, the dashboard and the public pages, with the worker')
    .option('--no-worker', 'leave the background work to separate `tagsvc worker` processes')
    .action(async (options: { worker: boolean }) => {
      const config = loadConfig();
      await (await import('../server.js')).serve(config, { worker: options.worker });
    });
  program
    .command('worker')
    .description('run only the background worker: webhook deliveries and periodic jobs')
    .action(async () => {
      const config = loadConfig();
      await (await import('../server.js')).work(config);
    });
  program
    .command('migrate')
    .description('bring the database schema up to date and print the migrations applied')
    .action(async (_options: Options, command: Command) => {
      const config = loadConfig();
      const { migrateToLatest, openDatabase } = await import('../db/database.js');
      const database = await openDatabase(config);
      try {
        printResult({ applied: await migrateToLatest(database) }, Boolean(command.optsWithGlobals<Options>().json));
      } finally {
        await database.close();
      }
    });
}

/**
 * Turns commander's exits into errors main() handles: help and version (exit 0) pass through,
 * misuse becomes a UsageError naming the command, so every failure is reported one way.
 */
function reportExitsAsErrors(command: Command): void {
  command.exitOverride((error: CommanderError) => {
    if (error.exitCode === 0) throw error;
    if (error.code === 'commander.help') {
      const names = command.commands.map((c) => c.name()).filter((name) => name !== 'help');
      throw new UsageError(`"${pathOf(command)}" needs a subcommand: ${names.join(', ')}`, pathOf(command));
    }
    throw fromCommander(error, pathOf(command));
  });
  command.commands.forEach(reportExitsAsErrors);
}

/** The whole command line: every command with its options, help and the version. */
export function buildProgram(): Command {
  const program = new Command('tagsvc')
    .description('tagsvc: the server, its worker and the operator’s commands')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'print help for the command')
    .option('--json', 'results as one line of JSON on stdout; failures as {"error":{"code","message"}} on stderr')
    .configureHelp({ showGlobalOptions: true })
    // Failures are reported by main() (text or JSON), not by commander.
    .configureOutput({ outputError: () => {}, writeErr: () => {} })
    .addHelpText('after', ENVIRONMENT_NOTE);
  addProcessCommands(program);
  addUserCommands(program);
  addOrganizationCommands(program);
  addKeyCommands(program);
  addSecretCommands(program);
  addDatabaseCommands(program);
  addBackupCommands(program);
  addFilesCommands(program);
  reportExitsAsErrors(program);
  return program;
}
