import type { Migration } from 'kysely';
import * as accounts from './0001_accounts.js';

/** Every migration, in order. Names sort in the order they must run; never rename one. */
export const migrations: Record<string, Migration> = {
  '0001_accounts': accounts,
};
