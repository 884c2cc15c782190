import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';

/**
 * PostgreSQL test apps start from a copy of one migrated database, not by migrating a schema of
 * their own: `CREATE DATABASE … TEMPLATE` copies it in about 0.05 s where the migrations take 1 s,
 * and a suite starts hundreds of apps. Each copy's schema is renamed to the app's own name, so a
 * copy is what a fresh DATABASE_SCHEMA of that name would be after `tagsvc migrate`.
 */
const TEMPLATE_SCHEMA = 'tagsvc_template';

/** `url` with its database name replaced. */
export function databaseUrlOf(url: string, database: string): string {
  const target = new URL(url);
  target.pathname = `/${database}`;
  return target.toString();
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Creates the run's template: a new database, migrated. Returns its name and how to drop it. */
export async function createTemplate(url: string): Promise<{ name: string; drop: () => Promise<void> }> {
  const name = `tagsvc_template_${randomBytes(6).toString('hex')}`;
  await withClient(url, (admin) => admin.query(`CREATE DATABASE "${name}"`));
  const handle = await openDatabase({
    dataDir: '',
    databaseUrl: databaseUrlOf(url, name),
    databaseSchema: TEMPLATE_SCHEMA,
    databasePoolSize: 1,
    dependencyTimeoutMs: 10_000,
  });
  try {
    await migrateToLatest(handle);
  } finally {
    // A template is copied only while no session is connected to it.
    await handle.close();
  }
  return {
    name,
    drop: () => withClient(url, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

/** A migrated database named `name`, copied from `template`, whose schema is also `name`; returns its URL. */
export async function cloneTemplate(url: string, template: string, name: string): Promise<string> {
  await withClient(url, (admin) => admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
  const cloneUrl = databaseUrlOf(url, name);
  await withClient(cloneUrl, (client) => client.query(`ALTER SCHEMA ${TEMPLATE_SCHEMA} RENAME TO "${name}"`));
  return cloneUrl;
}

/** Drops a schema a test app migrated in a database of the test's own choosing. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  await withClient(url, (client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
}

/** Drops a copy, ending whatever sessions a test left open on it. */
export async function dropClone(url: string, name: string): Promise<void> {
  await withClient(url, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}
