import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { transaction } from '../../src/db/transaction.js';
import { purgeAuditLog, recordAudit } from '../../src/features/audit/index.js';
import { auditRetentionJob } from '../../src/jobs/audit-retention.js';
import { actorOf, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

const DAY = 86_400_000;

/** An entry written `daysAgo` days before now (the test clock moved back, then forward again). */
async function entryFrom(t: TestApp, account: { userId: string; email: string; key: string }, daysAgo: number, targetId: string) {
  t.clock.advance(-daysAgo * DAY);
  try {
    await transaction(t.database.db, (trx) => recordAudit(t.services, trx, actorOf(account), { action: 'tag.updated', targetId }));
  } finally {
    t.clock.advance(daysAgo * DAY);
  }
}

const targetsLeft = async (t: TestApp, prefix: string) =>
  (
    await t.database.db.selectFrom('audit_log').select('target_id').where('target_id', 'like', `${prefix}%`).orderBy('target_id').execute()
  ).map((row) => row.target_id);

describe('audit log retention', () => {
  const t = useApp({ env: { AUDIT_RETENTION_DAYS: '30' } });
  const alice = useAccount(t);

  it('deletes what is older than AUDIT_RETENTION_DAYS, in batches, and keeps the rest', async () => {
    for (const [days, id] of [
      [40, 'old_a'],
      [35, 'old_b'],
      [31, 'old_c'],
      [29, 'kept_a'],
      [0, 'kept_b'],
    ] as const) {
      await entryFrom(t, alice, days, `batch_${id}`);
    }
    expect(await purgeAuditLog(t.services, { retentionDays: 30, batch: 2 })).toBe(3);
    expect(await targetsLeft(t, 'batch_')).toEqual(['batch_kept_a', 'batch_kept_b']);
  });

  it('runs as a worker job with the configured days', async () => {
    expect(t.config.auditRetentionDays).toBe(30);
    await entryFrom(t, alice, 45, 'job_old');
    await entryFrom(t, alice, 10, 'job_kept');
    await auditRetentionJob.run(t.services);
    expect(await targetsLeft(t, 'job_')).toEqual(['job_kept']);
  });
});

describe('AUDIT_RETENTION_DAYS', () => {
  const base = { SECRET_KEY: 'k'.repeat(32) };
  it('is a year unless set, and a whole number of days from 1', () => {
    expect(loadConfig(base).auditRetentionDays).toBe(365);
    expect(loadConfig({ ...base, AUDIT_RETENTION_DAYS: '90' }).auditRetentionDays).toBe(90);
    expect(() => loadConfig({ ...base, AUDIT_RETENTION_DAYS: '0' })).toThrow(/AUDIT_RETENTION_DAYS/);
    expect(() => loadConfig({ ...base, AUDIT_RETENTION_DAYS: 'a year' })).toThrow(/AUDIT_RETENTION_DAYS/);
  });
});
