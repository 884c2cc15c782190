import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migratorOf } from '../../src/db/database.js';
import { expectError, request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

/**
 * Migration 0017 (publishing): existing tags stay published, open and in the default theme; every
 * issued address learns its tag and its case-folded form, and two generated addresses from
 * before that differ only by case both stay taken.
 */
describe('migration 0017: publishing', () => {
  const t = useApp();
  const alice = useAccount(t, 'pro');

  it('upgrades existing tags and addresses, and goes down and up again', async () => {
    const created = await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Before publishing' } });
    const tag = created.body.data as { id: string; short_id: string };
    const migrator = migratorOf(t.database);
    expect((await migrator.migrateTo('0016_view_inbox_groups')).error).toBeUndefined();
    // The older schema's short_ids has no tag or folded column: not in the current types.
    const db = t.database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    // Addresses of deleted tags, issued at random before chosen addresses existed, one case apart.
    await db
      .insertInto('short_ids')
      .values([
        { short_id: 'QwErTy12', created_at: '2026-01-01T00:00:00.000Z' },
        { short_id: 'qwerty12', created_at: '2026-01-02T00:00:00.000Z' },
      ])
      .execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();

    const addresses = await t.database.db.selectFrom('short_ids').selectAll().orderBy('short_id').execute();
    expect(addresses.find((a) => a.short_id === tag.short_id)).toMatchObject({ tag_id: tag.id, folded: tag.short_id.toLowerCase() });
    const pair = addresses.filter((a) => a.short_id.toLowerCase() === 'qwerty12');
    expect(pair.map((a) => a.tag_id)).toEqual([null, null]);
    expect(pair.filter((a) => a.folded === 'qwerty12')).toHaveLength(1);
    for (const address of ['QWERTY12', 'qwerty12', 'QwErTy12']) {
      expectError(
        await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Taken', short_id: address } }),
        409,
        'short_id_taken',
      );
    }

    const read = (await request(t, 'GET', `/v1/tags/${tag.id}`, { key: alice.key })).body.data;
    expect(read).toMatchObject({
      status: 'published',
      publish_at: null,
      expires_at: null,
      max_views: null,
      expired_url: null,
      password_protected: false,
      theme: { preset: 'default', accent_color: null },
    });
    expect((await request(t, 'GET', `/t/${tag.short_id}`)).status).toBe(200);
  });
});
