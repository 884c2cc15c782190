import { describe, expect, it } from 'vitest';
import { viewsOfTags } from '../../src/features/analytics/index.js';
import * as tags from '../../src/features/tags/index.js';
import { request, actorOf } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

/**
 * What the dashboard reads about tags besides the tags themselves: the state of each page, one
 * query for a page of them; whether an address can be chosen; each tag's views in one query.
 */

const BROWSER = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36' };
const HOUR = 3600_000;

describe('page states, address checks and views of tags', () => {
  const t = useApp();
  const alice = useAccount(t, 'pro');
  const bob = useAccount(t, 'pro');
  const at = (offset: number) => new Date(t.clock.now().getTime() + offset).toISOString();

  it('names the state of every page as the public gets it, capped views counted in one query', async () => {
    const actor = actorOf(alice);
    const make = (input: tags.TagInput) => tags.createTag(t.services, actor, { title: 'State', ...input });
    const live = await make({});
    const draft = await make({ status: 'draft', publish_at: at(-HOUR) });
    const scheduled = await make({ publish_at: at(HOUR) });
    const expired = await make({ publish_at: at(-2 * HOUR), expires_at: at(-HOUR) });
    const capped = await make({ max_views: 2 });
    const locked = await make({ password: 'open sesame' });
    for (let i = 0; i < 2; i++) expect((await request(t, 'GET', `/t/${capped.short_id}`, { headers: BROWSER })).status).toBe(200);
    const all = [live, draft, scheduled, expired, capped, locked];

    const states = await tags.pageStates(t.services, all);
    expect(all.map((tag) => states.get(tag.id))).toEqual(['live', 'draft', 'scheduled', 'expired', 'expired', 'live']);
    // The same tags an hour and a half on: the scheduled page is live, and nothing else changed.
    t.clock.advance(1.5 * HOUR);
    const later = await tags.pageStates(t.services, all);
    expect(later.get(scheduled.id)).toBe('live');
    expect(later.get(capped.id)).toBe('expired');
    // Raising the cap leaves views to claim: live again.
    const raised = await tags.updateTag(t.services, actor, { id: capped.id, max_views: 3 });
    expect((await tags.pageStates(t.services, [raised])).get(capped.id)).toBe('live');
  });

  it('says whether an address can be chosen, and nothing about the tag that holds it', async () => {
    const mine = await tags.createTag(t.services, actorOf(alice), { title: 'Mine', short_id: 'alice-menu' });
    const theirs = await tags.createTag(t.services, actorOf(bob), { title: 'Theirs', short_id: 'bobs-menu' });
    const check = (shortId: string, tagId?: string) =>
      tags.checkAddress(t.services, actorOf(alice), { short_id: shortId, tag_id: tagId }).then((answer) => answer.result);

    expect(await check('fresh-address')).toBe('available');
    expect(await check('BOBS-MENU')).toBe('taken');
    expect(await check('alice-menu')).toBe('taken');
    // A tag may keep its own address, in any case, and take back one it left.
    expect(await check('Alice-Menu', mine.id)).toBe('available');
    await tags.updateTag(t.services, actorOf(alice), { id: mine.id, short_id: 'alice-lunch' });
    expect(await check('alice-menu', mine.id)).toBe('available');
    expect(await check('alice-menu')).toBe('taken');
    expect(await check('ab')).toBe('malformed');
    expect(await check('no spaces')).toBe('malformed');
    expect(await check('Dashboard')).toBe('reserved');
    const answer = await tags.checkAddress(t.services, actorOf(alice), { short_id: 'bobs-menu' });
    expect(JSON.stringify(answer)).not.toMatch(/Theirs|tag_/);
    // Another account's tag cannot be named as the one choosing.
    await expect(check('anything', theirs.id)).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('counts each listed tag’s views of the period in one grouped query, never another scope’s', async () => {
    const first = await tags.createTag(t.services, actorOf(alice), { title: 'Viewed' });
    const second = await tags.createTag(t.services, actorOf(alice), { title: 'Unviewed' });
    const foreign = await tags.createTag(t.services, actorOf(bob), { title: 'Bob’s' });
    for (const tag of [first, first, first, foreign]) {
      expect((await request(t, 'GET', `/t/${tag.short_id}`, { headers: BROWSER })).status).toBe(200);
    }
    const { period, views } = await viewsOfTags(t.services, actorOf(alice), { tag_ids: [first.id, second.id, foreign.id] });
    expect(Object.fromEntries(views)).toEqual({ [first.id]: 3, [second.id]: 0, [foreign.id]: 0 });
    // The analytics API's default period, whose report counts the same views.
    const report = await request(t, 'GET', `/v1/tags/${first.id}/analytics`, { key: alice.key });
    expect(report.body.data.period).toEqual(period);
    expect(report.body.data.summary.total_views).toBe(3);
    expect((await viewsOfTags(t.services, actorOf(alice), { tag_ids: [] })).views.size).toBe(0);
  });
});
