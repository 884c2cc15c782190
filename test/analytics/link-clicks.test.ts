import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { ClickRecorder } from '../../src/features/analytics/index.js';
import { renderTagPage } from '../../src/features/pages/index.js';
import { analyticsRetentionJob } from '../../src/jobs/analytics-retention.js';
import { createAccount, createKey, expectError, PUBLIC_BASE_URL, request, type ApiResponse, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { Receiver, waitFor } from '../helpers/receiver.js';
import { createWebhook, deliveryEnv } from '../webhooks/support.js';
import { addDays, createTag, get, getData, UA, useAnalyticsApp, view, visitorId } from './support.js';

/**
 * Counted link clicks: a page's http(s) link blocks point at /t/{short_id}/l/{block_id}, which
 * records the click and answers 302 to the link; GET /v1/tags/{id}/analytics/clicks counts them
 * per block. tel:, mailto: and sms: links go straight to the visitor's device.
 */

interface LinkBlock {
  id: string;
  type: string;
  url: string;
  label: string;
}

interface Tag {
  id: string;
  short_id: string;
  content: LinkBlock[];
}

interface Click {
  /** ISO instant the click happens at (the clock is frozen there first). */
  at?: string;
  /** null: no User-Agent header at all. Default: iPhone Safari. */
  ua?: string | null;
  /** Visitor id sent as the tsv cookie. */
  visitor?: string;
  method?: 'GET' | 'HEAD';
}

/** One click of a link button, as a browser (or bot) makes it. */
function click(t: TestApp, shortId: string, blockId: string, c: Click = {}): Promise<ApiResponse> {
  if (c.at) t.clock.freeze(new Date(c.at));
  const headers: Record<string, string> = {};
  const ua = c.ua === undefined ? UA.iphone : c.ua;
  if (ua !== null) headers['user-agent'] = ua;
  if (c.visitor) headers.cookie = `tsv=${c.visitor}`;
  return request(t, c.method ?? 'GET', `/t/${shortId}/l/${blockId}`, { headers });
}

/** A click that must be answered with the redirect to `url`. */
async function expectRedirect(response: ApiResponse, url: string): Promise<void> {
  expect(response.status, response.text).toBe(302);
  expect(response.headers.get('location')).toBe(url);
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
}

function expectNotFoundPage(response: ApiResponse): void {
  expect(response.status, response.text.slice(0, 300)).toBe(404);
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(response.text).toContain('<h1>Page not found</h1>');
}

const blockOf = (tag: Tag, url: string) => tag.content.find((block) => block.url === url)!;

/** The hrefs of the page's anchors, in order, each with its text. */
function anchors(html: string): Array<{ href: string; text: string }> {
  return [...html.matchAll(/<a [^>]*href="([^"]*)"[^>]*>(.*?)<\/a>/g)].map((m) => ({ href: m[1]!, text: m[2]! }));
}

const WEB = 'https://example.com/book?room=b&amp=1';
const WEB2 = 'http://example.org/menu';
const TEL = 'tel:+49-30-1234567';
const MAIL = 'mailto:desk@example.com?subject=Room%20B';
const SMS = 'sms:+4915112345678?body=Hello';

describe('link blocks and their counted clicks', () => {
  const t = useAnalyticsApp();
  const owner = useAccount(t, 'pro');
  const other = useAccount(t, 'pro');
  let tag: Tag;
  let web: LinkBlock;
  let web2: LinkBlock;
  const DAY = '2026-03-10';
  const NEXT = addDays(DAY, 1);

  beforeAll(async () => {
    t.clock.freeze(new Date(`${DAY}T08:00:00.000Z`));
    tag = (await createTag(t, owner.key, {
      title: 'Room B',
      content: [
        { type: 'link', url: WEB, label: 'Book the room' },
        { type: 'text', content: 'Or call us.' },
        { type: 'link', url: TEL, label: 'Call the desk' },
        { type: 'link', url: MAIL, label: '' },
        { type: 'link', url: SMS, label: 'Text us' },
        { type: 'link', url: WEB2, label: '' },
        {
          type: 'html',
          content:
            '<p><a href="tel:+4930999">phone</a> <a href="mailto:a@example.com">mail</a> <a href="sms:+4930999">text</a> <a href="javascript:alert(1)">bad</a></p>',
        },
      ],
    })) as unknown as Tag;
    web = blockOf(tag, WEB);
    web2 = blockOf(tag, WEB2);
  });

  describe('the rules of a link block', () => {
    it.each([
      ['javascript:alert(1)'],
      ['data:text/html,<script>alert(1)</script>'],
      ['ftp://example.com/file'],
      ['tel:'],
      ['mailto:'],
      ['example.com/no-scheme'],
    ])('refuses %s, naming the field and every scheme allowed', async (url) => {
      const response = await request(t, 'POST', '/v1/tags', { key: owner.key, body: { title: 'x', content: [{ type: 'link', url }] } });
      expectError(response, 400, 'validation_error', 'content[0].url');
      expect(response.body.error.message).toBe('content[0].url must be an http, https, tel, mailto or sms URL');
    });

    it('keeps tel:, mailto: and sms: links as written, in link blocks and in HTML blocks', async () => {
      expect(tag.content.filter((block) => block.type === 'link').map((block) => block.url)).toEqual([WEB, TEL, MAIL, SMS, WEB2]);
      const html = (tag.content.at(-1) as unknown as { content: string }).content;
      expect(html).toContain('href="tel:+4930999"');
      expect(html).toContain('href="mailto:a@example.com"');
      expect(html).toContain('href="sms:+4930999"');
      expect(html).not.toContain('javascript:');
    });
  });

  it('the page points web links at the counted redirect and phone, mail and text links straight at the device', async () => {
    const page = await request(t, 'GET', `/t/${tag.short_id}`, { headers: { 'user-agent': UA.curl } });
    expect(page.status).toBe(200);
    expect(anchors(page.text.split('<body>')[1]!)).toEqual([
      { href: `${PUBLIC_BASE_URL}/t/${tag.short_id}/l/${web.id}`, text: 'Book the room' },
      { href: TEL, text: 'Call the desk' },
      // An empty label shows the address, escaped like any text.
      { href: MAIL, text: 'mailto:desk@example.com?subject=Room%20B' },
      { href: SMS, text: 'Text us' },
      { href: `${PUBLIC_BASE_URL}/t/${tag.short_id}/l/${web2.id}`, text: WEB2 },
      { href: 'tel:+4930999', text: 'phone' },
      { href: 'mailto:a@example.com', text: 'mail' },
      { href: 'sms:+4930999', text: 'text' },
    ]);
    expect(page.text).toContain('>bad</a>');
  });

  it("the dashboard's preview keeps every link direct: nothing an editor clicks is counted", () => {
    const html = renderTagPage({ title: 'Preview', blocks: tag.content as never }, { file: (id) => `/t/x/files/${id}` });
    expect(anchors(html).map((a) => a.href)).toContain(WEB.replace(/&/g, '&amp;'));
    expect(html).not.toContain('/l/');
  });

  it("a draft's signed preview links straight to every URL, where the counted redirect would be missing", async () => {
    const draft = (await createTag(t, owner.key, {
      status: 'draft',
      content: [{ type: 'link', url: 'https://example.com/soon', label: 'Soon' }],
    })) as unknown as Tag & { preview_url: string };
    const preview = await request(t, 'GET', new URL(draft.preview_url).pathname, { headers: { 'user-agent': UA.iphone } });
    expect(preview.status, preview.text.slice(0, 300)).toBe(200);
    expect(anchors(preview.text)).toEqual([{ href: 'https://example.com/soon', text: 'Soon' }]);
    expectNotFoundPage(await click(t, draft.short_id, draft.content[0]!.id));
  });

  describe('a day of clicks', () => {
    beforeAll(async () => {
      // Five clicks of the first link by three visitors, two of the second by one, on DAY; one of each on NEXT.
      const clicks: Array<[LinkBlock, string, string]> = [
        [web, 'a', '09:00'],
        [web, 'b', '09:01'],
        [web, 'a', '09:02'],
        [web, 'c', '12:00'],
        [web, 'a', '23:59'],
        [web2, 'a', '10:00'],
        [web2, 'a', '11:00'],
      ];
      for (const [block, visitor, time] of clicks) {
        const response = await click(t, tag.short_id, block.id, { at: `${DAY}T${time}:00.000Z`, visitor: visitorId(visitor) });
        await expectRedirect(response, block === web ? new URL(WEB).href : WEB2);
        expect(response.headers.get('set-cookie')).toMatch(
          new RegExp(`^tsv=${visitorId(visitor)}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly$`),
        );
      }
      for (const block of [web, web2]) await click(t, tag.short_id, block.id, { at: `${NEXT}T09:00:00.000Z`, visitor: visitorId('d') });
    });

    it('counts every click the route answered, and distinct visitors by their cookie, per block in page order', async () => {
      const report = await getData(t, owner.key, `/v1/tags/${tag.id}/analytics/clicks`, { start_date: DAY, end_date: NEXT });
      expect(report).toEqual({
        tag_id: tag.id,
        period: { start: DAY, end: NEXT },
        timezone: 'UTC',
        total_clicks: 7,
        blocks: [
          { block_id: web.id, url: WEB, label: 'Book the room', clicks: 5, unique_clicks: 3 },
          { block_id: web2.id, url: WEB2, label: '', clicks: 2, unique_clicks: 1 },
        ],
      });
    });

    it('the period decides which clicks count; the default is the last 30 days up to today', async () => {
      const next = await getData(t, owner.key, `/v1/tags/${tag.short_id}/analytics/clicks`, {
        start_date: NEXT,
        end_date: addDays(NEXT, 1),
      });
      expect(next.total_clicks).toBe(2);
      expect(next.blocks.map((b: { clicks: number; unique_clicks: number }) => [b.clicks, b.unique_clicks])).toEqual([
        [1, 1],
        [1, 1],
      ]);
      const both = await getData(t, owner.key, `/v1/tags/${tag.id}/analytics/clicks`);
      expect(both.period).toEqual({ start: addDays(NEXT, -29), end: addDays(NEXT, 1) });
      expect(both.total_clicks).toBe(9);
      const before = await getData(t, owner.key, `/v1/tags/${tag.id}/analytics/clicks`, { start_date: '2026-03-01', end_date: DAY });
      expect(before.total_clicks).toBe(0);
      expect(before.blocks.map((b: { clicks: number }) => b.clicks)).toEqual([0, 0]);
      expectError(
        await get(t, owner.key, `/v1/tags/${tag.id}/analytics/clicks`, { start_date: NEXT, end_date: DAY }),
        400,
        'invalid_date_range',
      );
      expectError(
        await get(t, owner.key, `/v1/tags/${tag.id}/analytics/clicks`, { start_date: '2026-3-1' }),
        400,
        'validation_error',
        'start_date',
      );
    });

    it('bots, clients without a user agent and HEAD requests are sent on, not counted', async () => {
      const count = async () =>
        (await getData(t, owner.key, `/v1/tags/${tag.id}/analytics/clicks`, { start_date: DAY, end_date: addDays(NEXT, 1) })).total_clicks;
      const before = await count();
      for (const c of [{ ua: UA.googlebot }, { ua: UA.curl }, { ua: null }, { method: 'HEAD' as const }]) {
        const response = await click(t, tag.short_id, web2.id, c);
        await expectRedirect(response, WEB2);
        expect(response.headers.get('set-cookie')).toBeNull();
      }
      expect(await count()).toBe(before);
    });

    it('a link removed from the page keeps its clicks in total_clicks and leaves blocks; an edited link keeps its own', async () => {
      const edited = { ...web, url: 'https://example.com/book-v2' };
      const put = await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: owner.key, body: { content: [edited] } });
      expect(put.status, put.text).toBe(200);
      const report = await getData(t, owner.key, `/v1/tags/${tag.id}/analytics/clicks`, { start_date: DAY, end_date: NEXT });
      expect(report.total_clicks).toBe(7);
      expect(report.blocks).toEqual([
        { block_id: web.id, url: 'https://example.com/book-v2', label: 'Book the room', clicks: 5, unique_clicks: 3 },
      ]);
      // The removed block's address is gone with it; the edited one sends to its new URL.
      expectNotFoundPage(await click(t, tag.short_id, web2.id));
      await expectRedirect(await click(t, tag.short_id, web.id, { ua: UA.curl }), 'https://example.com/book-v2');
    });
  });

  it('an address that names no web link of the tag is the 404 page, and counts nothing', async () => {
    const otherTag = (await createTag(t, other.key, { content: [{ type: 'link', url: 'https://example.net/' }] })) as unknown as Tag;
    const tel = (await createTag(t, owner.key, { content: [{ type: 'link', url: TEL }] })) as unknown as Tag;
    const paths = [
      `/t/${tag.short_id}/l/blk_01jzzzzzzzzzzzzzzzzzzzzzzz`,
      // Another tag's link block through this tag's address.
      `/t/${tag.short_id}/l/${otherTag.content[0]!.id}`,
      // A phone link is never redirected.
      `/t/${tel.short_id}/l/${tel.content[0]!.id}`,
      `/t/zzzzzzzz/l/${web.id}`,
    ];
    for (const path of paths) expectNotFoundPage(await request(t, 'GET', path, { headers: { 'user-agent': UA.iphone } }));
    const rows = await t.database.db.selectFrom('link_clicks').select('id').where('tag_id', 'in', [otherTag.id, tel.id]).execute();
    expect(rows).toEqual([]);
  });

  it("a private tag's links are missing to everyone but whoever may read its page", async () => {
    const hidden = (await createTag(t, owner.key, {
      readPermission: 'private',
      content: [{ type: 'link', url: 'https://example.com/secret' }],
    })) as unknown as Tag;
    expectNotFoundPage(await click(t, hidden.short_id, hidden.content[0]!.id));
    const rows = await t.database.db.selectFrom('link_clicks').select('id').where('tag_id', '=', hidden.id).execute();
    expect(rows).toEqual([]);
  });

  it('sends a visitor to an address outside ASCII, percent-encoded as a Location header must be', async () => {
    const tag = (await createTag(t, owner.key, {
      content: [{ type: 'link', url: 'https://bücher.example/straße?q=ä ö' }],
    })) as unknown as Tag;
    await expectRedirect(await click(t, tag.short_id, tag.content[0]!.id), 'https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%A4%20%C3%B6');
  });

  it('needs analytics:read; another account gets 403 for the tag, a key of the other environment 404', async () => {
    const path = `/v1/tags/${tag.id}/analytics/clicks`;
    const tagsOnly = (await createKey(t, owner.email, { permissions: 'tags:read' })).key;
    expectError(await get(t, tagsOnly, path), 403, 'forbidden');
    expectError(await get(t, other.key, path), 403, 'forbidden');
    expectError(await get(t, other.key, `/v1/tags/${tag.short_id}/analytics/clicks`), 403, 'forbidden');
    const testKey = (await createKey(t, owner.email, { test: true })).key;
    expectError(await get(t, testKey, path), 404, 'not_found');
    expectError(await get(t, owner.key, '/v1/tags/tag_01jzzzzzzzzzzzzzzzzzzzzzzz/analytics/clicks'), 404, 'not_found');
  });

  it('a deleted tag takes its clicks with it', async () => {
    const doomed = (await createTag(t, owner.key, { content: [{ type: 'link', url: 'https://example.com/bye' }] })) as unknown as Tag;
    await expectRedirect(await click(t, doomed.short_id, doomed.content[0]!.id), 'https://example.com/bye');
    const clicksOf = () => t.database.db.selectFrom('link_clicks').select('id').where('tag_id', '=', doomed.id).execute();
    expect(await clicksOf()).toHaveLength(1);
    expect((await request(t, 'DELETE', `/v1/tags/${doomed.id}`, { key: owner.key })).status).toBe(200);
    expect(await clicksOf()).toEqual([]);
  });
});

describe('the click recorder', () => {
  const t = useAnalyticsApp();
  const owner = useAccount(t, 'pro');

  const clickOf = (tag: { id: string; short_id: string }, visitor: string) => ({
    tag: { ...tag, title: 'Recorded', environment: 'live' as const, owner_id: owner.userId, organization_id: null },
    block: { id: 'blk_01jzzzzzzzzzzzzzzzzzzzzzzz', url: 'https://example.com/', label: '' },
    occurred_at: t.clock.now().toISOString(),
    visitor: visitorId(visitor),
  });
  const clicksOf = (tagId: string) => t.database.db.selectFrom('link_clicks').select('visitor').where('tag_id', '=', tagId).execute();

  it('leaves out the click of a tag that is gone and stores the rest of its group', async () => {
    const tag = await createTag(t, owner.key);
    const recorder = new ClickRecorder(t.database.db, t.app.log);
    const gone = { id: 'tag_01jzzzzzzzzzzzzzzzzzzzzzzz', short_id: 'gonegone' };
    await Promise.all([
      recorder.record(clickOf(tag, 'kept1')),
      recorder.record(clickOf(gone, 'lost')),
      recorder.record(clickOf(tag, 'kept2')),
    ]);
    expect((await clicksOf(tag.id)).map((row) => row.visitor).sort()).toEqual([visitorId('kept1'), visitorId('kept2')]);
    expect(await clicksOf(gone.id)).toEqual([]);
  });

  // On PostgreSQL a group may be written while its tag is being deleted by another transaction.
  it.skipIf(!process.env.TEST_DATABASE_URL)('waits for a deletion of its tag in progress, then leaves its click out', async () => {
    const kept = await createTag(t, owner.key);
    const doomed = await createTag(t, owner.key);
    const recorder = new ClickRecorder(t.database.db, t.app.log);
    const deleter = new pg.Client({ connectionString: t.config.databaseUrl, options: `-c search_path="${t.config.databaseSchema}"` });
    await deleter.connect();
    try {
      await deleter.query('BEGIN');
      await deleter.query('SELECT id FROM tags WHERE id = $1 FOR UPDATE', [doomed.id]);
      const group = Promise.all([recorder.record(clickOf(kept, 'k')), recorder.record(clickOf(doomed, 'd'))]);
      await vi.waitFor(async () => {
        // A transaction reads the activity view from one snapshot, unless told to take a new one.
        await deleter.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await deleter.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO link_clicks%'`,
        );
        expect(Number(rows[0]!.n)).toBe(1);
      });
      await deleter.query('DELETE FROM tags WHERE id = $1', [doomed.id]);
      await deleter.query('COMMIT');
      await group;
    } finally {
      await deleter.end();
    }
    expect(await clicksOf(kept.id)).toEqual([{ visitor: visitorId('k') }]);
    expect(await clicksOf(doomed.id)).toEqual([]);
  });
});

describe('link click retention', () => {
  const t = useAnalyticsApp();
  const D0 = '2026-01-10';
  // 400 days on, Pro keeps today and the 364 days before it.
  const RUN_DAY = addDays(D0, 400);
  const CUTOFF = addDays(RUN_DAY, -364);

  it("deletes the clicks before each plan's oldest kept day, personal and organization tags alike, and no other", async () => {
    t.clock.freeze(new Date(`${D0}T09:00:00.000Z`));
    const pro = await createAccount(t, 'pro');
    const ent = await createAccount(t, 'enterprise');
    // An organization on Pro owned by the Enterprise user: its tags follow the organization's plan.
    const org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Pro org', ownerEmail: ent.email, plan: 'pro' });
    const orgKey = (await createKey(t, ent.email, { organizationId: org.id })).key;
    const link = { type: 'link', url: 'https://example.com/kept' };
    const tags = {
      pro: (await createTag(t, pro.key, { content: [link] })) as unknown as Tag,
      ent: (await createTag(t, ent.key, { content: [link] })) as unknown as Tag,
      org: (await createTag(t, orgKey, { content: [link] })) as unknown as Tag,
    };
    const at = (tag: Tag, instant: string) => click(t, tag.short_id, tag.content[0]!.id, { at: instant, visitor: visitorId('kept') });
    for (const tag of Object.values(tags)) await at(tag, `${D0}T10:00:00.000Z`);
    await at(tags.pro, `${addDays(CUTOFF, -1)}T23:59:59.999Z`);
    await at(tags.pro, `${CUTOFF}T00:00:00.000Z`);
    const clicksOf = async (tag: Tag) =>
      (
        await t.database.db.selectFrom('link_clicks').select('occurred_at').where('tag_id', '=', tag.id).orderBy('occurred_at').execute()
      ).map((row) => row.occurred_at);

    t.clock.freeze(new Date(`${RUN_DAY}T12:00:00.000Z`));
    await analyticsRetentionJob.run(t.services);
    expect(await clicksOf(tags.pro)).toEqual([`${CUTOFF}T00:00:00.000Z`]);
    expect(await clicksOf(tags.org)).toEqual([]);
    expect(await clicksOf(tags.ent)).toEqual([`${D0}T10:00:00.000Z`]);
    const report = await getData(t, pro.key, `/v1/tags/${tags.pro.id}/analytics/clicks`, { start_date: D0 });
    expect(report.period.start).toBe(CUTOFF);
    expect(report.total_clicks).toBe(1);

    // Past the longest history (Enterprise, 3 years) the last ones go.
    t.clock.freeze(new Date(`${addDays(D0, 1096)}T12:00:00.000Z`));
    await analyticsRetentionJob.run(t.services);
    expect(await clicksOf(tags.ent)).toEqual([]);
  });
});

describe('link.clicked webhooks', () => {
  const t = useApp(async () => ({ worker: true, env: await deliveryEnv() }));
  let receiver: Receiver;
  let others: Receiver;
  beforeAll(async () => {
    receiver = await Receiver.start();
    others = await Receiver.start();
  });
  afterAll(async () => {
    await receiver.close();
    await others.close();
  });

  it('a counted click reaches the webhooks that take link.clicked, signed, with the tag, the block and the instant', async () => {
    const alice = await createAccount(t);
    const hook = await createWebhook(t, alice.key, { url: receiver.url, events: ['link.clicked'] });
    await createWebhook(t, alice.key, { url: others.url, events: ['tag.viewed'] });
    const tag = (await createTag(t, alice.key, {
      title: 'Clicked',
      content: [{ type: 'link', url: 'https://example.com/go', label: 'Go' }],
    })) as unknown as Tag & { title: string };
    const block = tag.content[0]!;

    // A bot's click is sent on without an event; the browser's after it has one.
    await expectRedirect(await click(t, tag.short_id, block.id, { ua: UA.googlebot }), 'https://example.com/go');
    const before = new Date().toISOString();
    await expectRedirect(await click(t, tag.short_id, block.id, { visitor: visitorId('hook') }), 'https://example.com/go');
    const after = new Date().toISOString();

    const [got] = await waitFor(() => (receiver.events('link.clicked').length > 0 ? receiver.events('link.clicked') : undefined));
    expect(new StandardWebhook(hook.secret).verify(got!.body, got!.headers)).toEqual(got!.json);
    const { created_at: createdAt, data } = got!.json;
    expect(got!.json.event).toBe('link.clicked');
    expect(data).toEqual({
      tag: { id: tag.id, short_id: tag.short_id, title: 'Clicked' },
      click: { block_id: block.id, url: 'https://example.com/go', label: 'Go', occurred_at: createdAt },
    });
    expect(createdAt >= before && createdAt <= after, `${createdAt} within the click's request`).toBe(true);
    // The page view webhook got nothing of it; the one event was the browser's click.
    await view(t, tag.short_id, { visitor: visitorId('hook') });
    await waitFor(() => others.events('tag.viewed').length === 1 || undefined);
    expect(others.events('link.clicked')).toEqual([]);
    expect(receiver.events()).toHaveLength(1);
  });

  it('no link.clicked event is written for an account no webhook takes it for', async () => {
    const bob = await createAccount(t);
    await createWebhook(t, bob.key, { url: others.url, events: ['tag.updated'] });
    const tag = (await createTag(t, bob.key, { content: [{ type: 'link', url: 'https://example.com/quiet' }] })) as unknown as Tag;
    await expectRedirect(await click(t, tag.short_id, tag.content[0]!.id), 'https://example.com/quiet');
    expect(await t.database.db.selectFrom('link_clicks').select('id').where('tag_id', '=', tag.id).execute()).toHaveLength(1);
    expect(await t.database.db.selectFrom('events').select('type').where('tag_id', '=', tag.id).execute()).toEqual([
      { type: 'tag.created' },
    ]);
  });
});
