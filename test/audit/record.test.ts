import { describe, expect, it } from 'vitest';
import { transaction } from '../../src/db/transaction.js';
import { recordAudit } from '../../src/features/audit/index.js';
import { networkOf } from '../../src/lib/ip.js';
import { actorOf } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

const t = useApp();
const alice = useAccount(t, 'pro');

const entriesOf = (requestId: string) => t.database.db.selectFrom('audit_log').selectAll().where('request_id', '=', requestId).execute();

describe('recordAudit', () => {
  it('writes who, what, the masked address and the request, in the workspace of the actor', async () => {
    const actor = { ...actorOf(alice), origin: { requestId: 'req_record_1', ip: '203.0.113.77' } };
    await transaction(t.database.db, (trx) =>
      recordAudit(t.services, trx, actor, { action: 'tag.updated', targetId: 'tag_x', environment: 'live', details: { fields: 1 } }),
    );
    const [entry] = await entriesOf('req_record_1');
    expect(entry).toMatchObject({
      owner_id: alice.userId,
      organization_id: null,
      environment: 'live',
      actor_type: 'user',
      actor_id: alice.userId,
      actor_name: alice.email,
      action: 'tag.updated',
      target_id: 'tag_x',
      ip: '203.0.113.0',
      details: '{"fields":1}',
    });
  });

  it('is rolled back with the transaction it was written in', async () => {
    const actor = { ...actorOf(alice), origin: { requestId: 'req_record_2', ip: '203.0.113.77' } };
    const failed = transaction(t.database.db, async (trx) => {
      await recordAudit(t.services, trx, actor, { action: 'tag.deleted', targetId: 'tag_y' });
      throw new Error('the change failed');
    });
    await expect(failed).rejects.toThrow('the change failed');
    expect(await entriesOf('req_record_2')).toEqual([]);
  });
});

describe('networkOf', () => {
  it('keeps an IPv4 address’s /24 and an IPv6 address’s /48, never the host', () => {
    expect(networkOf('203.0.113.77')).toBe('203.0.113.0');
    expect(networkOf('::ffff:198.51.100.9')).toBe('198.51.100.0');
    expect(networkOf('2001:db8:85a3:1234:5678::1')).toBe('2001:db8:85a3::');
    expect(networkOf('not an address')).toBeNull();
  });
});
