import type { Migration } from 'kysely';
import * as accounts from './0001_accounts.js';
import * as tags from './0002_tags.js';

/** Every migration, in order. Names sort in the order they must run; never rename one. */
export const migrations: Record<string, Migration> = {
  '0001_accounts': accounts,
  '0002_tags': tags,
};
