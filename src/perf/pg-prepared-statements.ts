/**
 * PostgreSQL parses and plans an unnamed statement anew at every execution; node-postgres
 * prepares a named one on each connection the first time it runs there, and later runs skip
 * both steps. Registered here are statements that run often and whose planning is a large part
 * of their cost, such as the append of a group of page views (ingestion.repository.ts; figures
 * in README.md).
 *
 * Only fixed texts are registered, never what a query builder makes: a connection keeps every
 * statement it prepared until it closes, and Kysely writes a new text for every length of an
 * IN list.
 */
const names = new Map<string, string>();

/** Registers `text` to be prepared on PostgreSQL, and returns it. */
export function preparedOnPostgres(text: string): string {
  if (!names.has(text)) names.set(text, `tagsvc_${names.size + 1}`);
  return text;
}

/** The name `text` runs under, when it is registered (db/pg-pool.ts runs it so). */
export const preparedName = (text: string): string | undefined => names.get(text);
