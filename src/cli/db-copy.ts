import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { printResult, UsageError } from './output.js';

/**
 * `tagsvc db copy --to postgres://…`: the configured SQLite database into PostgreSQL
 * (docs/operations.md). Progress goes to stderr, table by table; the result to stdout.
 */
export function addDatabaseCommands(program: Command): void {
  program
    .command('db')
    .description('move the database')
    .command('copy')
    .description('copy every table of the configured SQLite database into an empty PostgreSQL database (or schema), from one snapshot')
    .requiredOption('--to <url>', 'the target, postgres://user:password@host:port/database')
    .option('--schema <name>', 'a schema of the target to copy into (created when missing), as DATABASE_SCHEMA names one')
    .action(async (options: { to: string; schema?: string }, command: Command) => {
      const config = loadConfig();
      if (config.databaseUrl)
        throw new UsageError('DATABASE_URL is set: db copy copies the SQLite database in DATA_DIR, unset it', 'db copy');
      const sqliteFile = join(config.dataDir, (await import('../db/database.js')).SQLITE_FILE);
      if (!existsSync(sqliteFile)) throw new UsageError(`no SQLite database at ${sqliteFile}: is DATA_DIR right?`, 'db copy');
      const target = targetSettings(options);
      const [{ openDatabase }, { copySqliteToPostgres }] = await Promise.all([
        import('../db/database.js'),
        import('../db/copy-to-postgres.js'),
      ]);
      const database = await openDatabase({ ...config, ...target });
      const started = performance.now();
      try {
        const copied = await copySqliteToPostgres(sqliteFile, database, ({ table, rows }) =>
          process.stderr.write(`copied ${table}: ${rows.toLocaleString('en-US')} rows\n`),
        );
        const seconds = (performance.now() - started) / 1000;
        const rows = copied.reduce((sum, t) => sum + t.rows, 0);
        printResult(
          {
            tables: Object.fromEntries(copied.map((t) => [t.table, t.rows])),
            rows,
            seconds: Number(seconds.toFixed(1)),
            rowsPerSecond: Math.round(rows / seconds),
            verified: 'row counts equal in every table',
          },
          Boolean(command.optsWithGlobals<{ json?: boolean }>().json),
        );
      } finally {
        await database.close();
      }
    });
}

/** --to and --schema, checked as DATABASE_URL and DATABASE_SCHEMA are, and refused as the options they are. */
function targetSettings(options: { to: string; schema?: string }) {
  try {
    const { databaseUrl, databaseSchema } = loadConfig({
      ...process.env,
      DATABASE_URL: options.to,
      DATABASE_SCHEMA: options.schema ?? '',
    });
    return { databaseUrl, databaseSchema };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const option = error.variable === 'DATABASE_SCHEMA' ? '--schema' : '--to';
    throw new UsageError(`${option}: ${error.message}`, 'db copy');
  }
}
