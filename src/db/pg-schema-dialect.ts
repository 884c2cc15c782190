import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  PostgresDialect,
  PostgresIntrospector,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Kysely,
  type PostgresDialectConfig,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

/**
 * Kysely's PostgreSQL dialect, its introspection kept to the one schema the service uses.
 *
 * Kysely's migrator finds its bookkeeping tables by listing every table of every schema in the
 * database, with has_schema_privilege() on each schema's name. A schema dropped by someone else
 * while that list is read (another tenant of a shared server, another test) fails the listing
 * with "schema … does not exist", and with it the start of the service. Listing only our own
 * schema's tables answers the migrator's one question and reads nothing of anyone else's.
 */
export class SchemaBoundPostgresDialect extends PostgresDialect {
  constructor(
    config: PostgresDialectConfig,
    private readonly schema: string | undefined,
  ) {
    super(config);
  }

  // Kysely types the database of an introspector as Kysely<any>.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new OneSchemaIntrospector(db, this.schema);
  }
}

class OneSchemaIntrospector implements DatabaseIntrospector {
  private readonly all: PostgresIntrospector;

  constructor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    private readonly db: Kysely<any>,
    private readonly schema: string | undefined,
  ) {
    this.all = new PostgresIntrospector(db);
  }

  getSchemas(): Promise<SchemaMetadata[]> {
    return this.all.getSchemas();
  }

  /**
   * The tables and views of the schema (the search path's first when none is named), without
   * columns; Kysely's own migration tables only when asked for, as Kysely does.
   */
  async getTables(options?: DatabaseMetadataOptions): Promise<TableMetadata[]> {
    const schema = this.schema === undefined ? sql`current_schema()` : sql`${this.schema}`;
    const { rows } = await sql<{ name: string; kind: string; schema: string }>`
      SELECT c.relname AS name, c.relkind AS kind, n.nspname AS schema
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'v', 'p')
      ORDER BY c.relname`.execute(this.db);
    const internal = [DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE];
    return rows
      .filter((row) => options?.withInternalKyselyTables || !internal.includes(row.name))
      .map((row) => ({ name: row.name, schema: row.schema, isView: row.kind === 'v', columns: [] }));
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}
