import { describe, expect, it } from 'vitest';
import * as folders from '../../src/features/folders/index.js';
import * as tags from '../../src/features/tags/index.js';
import { actorOf, type Account } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

/** The tags service's helpers for the dashboard: every batch problem at once, counts by folder, title search. */
describe('tags service: batch problems, counts by folder, title search', () => {
  const t = useApp();
  const alice = useAccount(t);
  const bob = useAccount(t);

  const titles = async (account: Account, search: string) =>
    (await tags.listTags(t.services, actorOf(account), { search, sort: 'title', order: 'asc', limit: 100, offset: 0 })).tags.map(
      (tag) => tag.title,
    );

  it('finds every item’s problem with its index and field, and writes nothing', async () => {
    const bobs = await folders.createFolder(t.services, actorOf(bob), { name: 'Bob’s' });
    const problems = await tags.findBatchProblems(t.services, actorOf(alice), {
      tags: [{ title: 'fine' }, { title: ' ' }, { title: 'x', folder_id: bobs.id }, {}],
    });
    expect(problems.map(({ index, error }) => [index, error.details.field])).toEqual([
      [1, 'tags[1].title'],
      [2, 'tags[2].folder_id'],
      [3, 'tags[3].title'],
    ]);
    expect(await titles(alice, '')).toEqual([]);
  });

  it('counts the tags of each folder in the actor’s scope only', async () => {
    const [a, b] = [
      await folders.createFolder(t.services, actorOf(alice), { name: 'A' }),
      await folders.createFolder(t.services, actorOf(alice), { name: 'B' }),
    ];
    for (const folder_id of [a.id, a.id, b.id, null]) await tags.createTag(t.services, actorOf(alice), { title: 'counted', folder_id });
    const counts = await tags.countTagsByFolder(t.services, actorOf(alice));
    expect(Object.fromEntries(counts)).toEqual({ [a.id]: 2, [b.id]: 1 });
    expect((await tags.countTagsByFolder(t.services, actorOf(bob))).size).toBe(0);
  });

  it('searches titles ignoring case, with LIKE’s wildcards and the escape taken literally', async () => {
    for (const title of ['50% off', '50 percent', 'snake_case', 'snakeXcase', 'back\\slash', 'Summer Fair']) {
      await tags.createTag(t.services, actorOf(alice), { title });
    }
    expect(await titles(alice, '50%')).toEqual(['50% off']);
    expect(await titles(alice, 'e_c')).toEqual(['snake_case']);
    expect(await titles(alice, 'k\\s')).toEqual(['back\\slash']);
    expect(await titles(alice, 'summer')).toEqual(['Summer Fair']);
    expect(await titles(bob, 'summer')).toEqual([]);
  });
});
