import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort, startNode, stop, waitForHttp, type Child } from './children.js';

const run = promisify(execFile);

export interface Account {
  email: string;
  /** The API key value, for `Authorization: Bearer`. */
  key: string;
  keyId: string;
}

/** The real tagsvc, as a separate process, with the CLI pointed at the same data. */
export interface Service {
  baseUrl: string;
  /** `sqlite` or `postgres (schema …)`, for the report. */
  database: string;
  logLevel: string;
  logFile: string;
  /** Runs `tagsvc <args> --json` against the service's data and returns the parsed output. */
  cli(args: string[]): Promise<unknown>;
  /** A fresh user on `plan` with one API key carrying every permission. */
  createAccount(plan?: 'pro' | 'enterprise'): Promise<Account>;
  /** Stops the process and removes its data (the PostgreSQL schema included). */
  close(): Promise<void>;
}

export interface ServiceOptions {
  root: string;
  /** Fresh, empty directory: DATA_DIR (SQLite file, secret) and the log file. */
  workDir: string;
  logLevel: string;
  databaseUrl?: string;
}

let accounts = 0;

export async function startService(options: ServiceOptions): Promise<Service> {
  const port = await freePort();
  // A throwaway schema keeps the bench from touching anything else in that database.
  const schema = options.databaseUrl ? `bench_${randomBytes(5).toString('hex')}` : undefined;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: join(options.workDir, 'data'),
    LOG_LEVEL: options.logLevel,
    // Set explicitly (empty = unset) so a developer's own shell settings cannot leak in.
    DATABASE_URL: options.databaseUrl ?? '',
    DATABASE_SCHEMA: schema ?? '',
    REDIS_URL: '',
    // One key at tens of thousands of req/s is far over any plan's limit (enterprise: 300 a
    // minute): with limits on, every measured request would be a 429. The limiter's own switch
    // for benchmarks; failed-authentication limits still apply.
    RATE_LIMITS: 'false',
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  const logFile = join(options.workDir, 'service.log');
  let child: Child | undefined;

  const cli = async (args: string[]) => {
    const { stdout } = await run(process.execPath, ['bin/tagsvc', ...args, '--json'], { cwd: options.root, env, timeout: 30_000 }).catch(
      (error: { stderr?: string; message: string }) => {
        throw new Error(`tagsvc ${args.slice(0, 2).join(' ')} failed: ${error.stderr?.trim() || error.message}`);
      },
    );
    return JSON.parse(stdout) as unknown;
  };

  const close = async () => {
    if (child) await stop(child.process);
    if (options.databaseUrl && schema) await dropSchema(options.databaseUrl, schema);
  };

  try {
    // --no-worker: background jobs would compete for the CPU and make runs less repeatable.
    child = startNode('tagsvc serve', ['bin/tagsvc', 'serve', '--no-worker'], { env, cwd: options.root, logFile });
    await waitForHttp(`${baseUrl}/healthz`, child);
  } catch (error) {
    // The start-up error is the one worth reporting, not a failed clean-up after it.
    await close().catch(() => {});
    throw error;
  }

  return {
    baseUrl,
    database: schema ? `postgres (schema ${schema})` : 'sqlite',
    logLevel: options.logLevel,
    logFile,
    cli,
    close,
    async createAccount(plan = 'enterprise') {
      const email = `bench-${process.pid}-${++accounts}@example.com`;
      await cli(['user', 'create', '--email', email, '--password', 'bench-password', '--plan', plan]);
      const key = (await cli(['key', 'create', '--email', email, '--name', 'bench'])) as { id: string; key: string };
      return { email, key: key.key, keyId: key.id };
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
