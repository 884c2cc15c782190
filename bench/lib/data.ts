import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface Account {
  email: string;
  /** The API key value, for `Authorization: Bearer`. */
  key: string;
  keyId: string;
}

/** Runs `tagsvc <args> --json` with `env`, `input` on its standard input, and returns the parsed output. */
export type Cli = (args: string[], input?: string) => Promise<unknown>;

/**
 * The data every service variant of a run shares (SQLite in DATA_DIR, or a throwaway
 * PostgreSQL schema), and the CLI pointed at it. Shared so an account or tag made once can be
 * requested from any variant: a comparison then sends the very same request to both.
 */
export interface BenchData {
  /** Environment common to the CLI and every service variant. */
  env: NodeJS.ProcessEnv;
  /** `sqlite` or `postgres (schema …)`, for the report. */
  database: string;
  /** Runs `tagsvc <args> --json` against the data and returns the parsed output. */
  cli: Cli;
  /** A fresh user on `plan` with one API key carrying every permission. */
  createAccount(plan?: 'pro' | 'enterprise'): Promise<Account>;
  /**
   * On PostgreSQL, a second throwaway schema named after the run's, dropped with it (a dataset
   * that must not mix with the shared data); undefined on SQLite.
   */
  extraSchema(suffix: string): string | undefined;
  /** Removes the PostgreSQL schemas; the SQLite files go with the run's work directory. */
  drop(): Promise<void>;
}

/**
 * Environment for the CLI and the service on the given data. Every setting the bench depends
 * on is set explicitly (empty = unset) so a developer's own shell settings cannot leak in; the
 * variants (lib/variants.ts) set the limiter's.
 */
export function dataEnv(target: { dataDir: string; databaseUrl?: string; schema?: string }): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATA_DIR: target.dataDir,
    DATABASE_URL: target.databaseUrl ?? '',
    DATABASE_SCHEMA: target.schema ?? '',
    REDIS_URL: '',
    RATE_LIMITS: 'false',
    RATE_LIMIT_MULTIPLIER: '',
  };
}

export function makeCli(root: string, env: NodeJS.ProcessEnv): Cli {
  return async (args: string[], input = '') => {
    const running = run(process.execPath, ['bin/tagsvc', ...args, '--json'], { cwd: root, env, timeout: 30_000 });
    running.child.stdin?.end(input);
    const { stdout } = await running.catch((error: { stderr?: string; message: string }) => {
      throw new Error(`tagsvc ${args.slice(0, 2).join(' ')} failed: ${error.stderr?.trim() || error.message}`);
    });
    return JSON.parse(stdout) as unknown;
  };
}

let accounts = 0;

/** A fresh user on `plan` with one API key carrying every permission, through the CLI. */
export async function createAccountWith(cli: Cli, plan: 'pro' | 'enterprise' = 'enterprise'): Promise<Account> {
  const email = `bench-${process.pid}-${Date.now().toString(36)}-${++accounts}@example.com`;
  await cli(['user', 'create', '--email', email, '--plan', plan, '--password-stdin'], 'bench-password');
  const key = (await cli(['key', 'create', '--email', email, '--name', 'bench'])) as { id: string; key: string };
  return { email, key: key.key, keyId: key.id };
}

export function createBenchData(options: { root: string; workDir: string; databaseUrl?: string }): BenchData {
  // A throwaway schema keeps the bench from touching anything else in that database.
  const schema = options.databaseUrl ? `bench_${randomBytes(5).toString('hex')}` : undefined;
  const schemas = schema ? [schema] : [];
  const env = dataEnv({ dataDir: join(options.workDir, 'data'), databaseUrl: options.databaseUrl, schema });
  const cli = makeCli(options.root, env);

  return {
    env,
    database: schema ? `postgres (schema ${schema})` : 'sqlite',
    cli,
    createAccount: (plan = 'enterprise') => createAccountWith(cli, plan),
    extraSchema(suffix) {
      if (!schema) return undefined;
      const extra = `${schema}_${suffix}`;
      if (!schemas.includes(extra)) schemas.push(extra);
      return extra;
    },
    async drop() {
      if (options.databaseUrl) for (const name of schemas) await dropSchema(options.databaseUrl, name);
    },
  };
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
