import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';

/**
 * PostgreSQL: triggers that notify the processes' exact caches (perf/pg-change-feed.ts) when the
 * rows behind a cached API key or tag change, in the transaction that changes them. Inserts
 * are left out: a new row cannot make a cached one stale, and a miss is never cached. Updates
 * of api_keys that only touch last_used_at (written as keys are used) are left out too. On
 * SQLite, the database's own change counter does this job.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`
    CREATE OR REPLACE FUNCTION tagsvc_cache_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('tagsvc_cache', TG_TABLE_SCHEMA || ' ' || TG_ARGV[0]);
      RETURN NULL;
    END $$`.execute(db);
  const triggers = [
    ['tags_cache', 'UPDATE OR DELETE OR TRUNCATE ON tags', 'tags'],
    ['api_keys_cache', 'DELETE OR TRUNCATE ON api_keys', 'keys'],
    [
      'api_keys_cache_update',
      'UPDATE OF user_id, organization_id, name, environment, scope, permissions, ip_allowlist, enabled, key_hash ON api_keys',
      'keys',
    ],
    ['users_cache', 'UPDATE OR DELETE OR TRUNCATE ON users', 'keys'],
    ['organizations_cache', 'UPDATE OR DELETE OR TRUNCATE ON organizations', 'keys'],
  ];
  for (const [name, on, topic] of triggers) {
    await sql.raw(`CREATE TRIGGER ${name} AFTER ${on} FOR EACH STATEMENT EXECUTE FUNCTION tagsvc_cache_changed('${topic}')`).execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`DROP FUNCTION tagsvc_cache_changed() CASCADE`.execute(db);
}
