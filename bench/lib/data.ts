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
  cli(args: string[]): Promise<unknown>;
  /** A fresh user on `plan` with one API key carrying every permission. */
  createAccount(plan?: 'pro' | 'enterprise'): Promise<Account>;
  /** Removes the PostgreSQL schema; the SQLite files go with the run's work directory. */
  drop(): Promise<void>;
}

let accounts = 0;

export function createBenchData(options: { root: string; workDir: string; databaseUrl?: string }): BenchData {
  // A throwaway schema keeps the bench from touching anything else in that database.
  const schema = options.databaseUrl ? `bench_${randomBytes(5).toString('hex')}` : undefined;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: join(options.workDir, 'data'),
    // Set explicitly (empty = unset) so a developer's own shell settings cannot leak in; the
    // variants (lib/variants.ts) set the limiter's.
    DATABASE_URL: options.databaseUrl ?? '',
    DATABASE_SCHEMA: schema ?? '',
    REDIS_URL: '',
    RATE_LIMITS: 'false',
    RATE_LIMIT_MULTIPLIER: '',
  };

  const cli = async (args: string[]) => {
    const { stdout } = await run(process.execPath, ['bin/tagsvc', ...args, '--json'], { cwd: options.root, env, timeout: 30_000 }).catch(
      (error: { stderr?: string; message: string }) => {
        throw new Error(`tagsvc ${args.slice(0, 2).join(' ')} failed: ${error.stderr?.trim() || error.message}`);
      },
    );
    return JSON.parse(stdout) as unknown;
  };

  return {
    env,
    database: schema ? `postgres (schema ${schema})` : 'sqlite',
    cli,
    async createAccount(plan = 'enterprise') {
      const email = `bench-${process.pid}-${++accounts}@example.com`;
      await cli(['user', 'create', '--email', email, '--password', 'bench-password', '--plan', plan]);
      const key = (await cli(['key', 'create', '--email', email, '--name', 'bench'])) as { id: string; key: string };
      return { email, key: key.key, keyId: key.id };
    },
    async drop() {
      if (options.databaseUrl && schema) await dropSchema(options.databaseUrl, schema);
    },
  };
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
