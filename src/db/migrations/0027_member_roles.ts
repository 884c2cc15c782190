import { sql, type Kysely } from 'kysely';

/**
 * Organization roles become owner, admin, editor and viewer. A `member` acted for the
 * organization only through keys an owner or admin gave them and read its page and members:
 * read-only, so they become viewers, whose dashboard is read-only too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE organization_members SET role = 'viewer' WHERE role = 'member'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE organization_members SET role = 'member' WHERE role IN ('editor', 'viewer')`.execute(db);
}
