import { describe, expect, it } from 'vitest';
import { afterCommit, transaction } from '../../src/db/transaction.js';
import { useApp } from '../helpers/harness.js';

/** After-commit work (cache announcements, blob removal) runs once a write is committed, never on rollback. */
describe('transaction() and afterCommit', () => {
  const t = useApp();

  it('runs registered work after the commit, in order, and not before', async () => {
    const seen: string[] = [];
    await transaction(t.services.db, async (trx) => {
      await afterCommit(trx, () => void seen.push('first'));
      await afterCommit(trx, () => void seen.push('second'));
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['first', 'second']);
  });

  it('drops registered work when the transaction rolls back', async () => {
    const seen: string[] = [];
    await expect(
      transaction(t.services.db, async (trx) => {
        await afterCommit(trx, () => void seen.push('never'));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(seen).toEqual([]);
  });

  it('runs at once outside a transaction, and joins an outer transaction', async () => {
    const seen: string[] = [];
    await afterCommit(t.services.db, () => void seen.push('now'));
    expect(seen).toEqual(['now']);
    await transaction(t.services.db, async (outer) => {
      await transaction(outer, async (inner) => afterCommit(inner, () => void seen.push('after outer')));
      expect(seen).toEqual(['now']);
    });
    expect(seen).toEqual(['now', 'after outer']);
  });

  it('refuses a transaction opened around it, whose commit it cannot see', async () => {
    await expect(t.services.db.transaction().execute((trx) => afterCommit(trx, () => undefined))).rejects.toThrow('transaction()');
  });
});
