import { describe, expect, it } from 'vitest';
import { createAccount, request, startTestApp } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import { createTag, getData, UA, useAnalyticsApp, view, visit, visitorId } from './support.js';

/**
 * Requests for public pages from known bots (visitor.ts isBot): counted per tag and hour in
 * memory, added to the rollups' bot_views (features/analytics/bot-views.ts), shown beside the
 * human figures and never among them. Reports add the counts first, so nothing here waits.
 */
describe('bot requests are counted apart from views', () => {
  const t = useAnalyticsApp();
  const pro = useAccount(t, 'pro');
  const DAY = '2026-04-03';
  const NEXT_DAY = '2026-04-04';

  it('N bot requests and M views: bot_views N and total_views M, in the report and the overview', async () => {
    const owner = await createAccount(t, 'pro');
    const tag = await createTag(t, owner.key, { title: 'Crawled' });
    // Five bot requests on the day, over two hours, on both addresses; none of them a view.
    await visit(t, tag.short_id, { at: `${DAY}T08:10:00.000Z`, ua: UA.googlebot });
    await visit(t, tag.short_id, { at: `${DAY}T08:20:00.000Z`, ua: UA.googlebot, scan: true });
    await visit(t, tag.short_id, { at: `${DAY}T08:30:00.000Z`, ua: UA.curl });
    await visit(t, tag.short_id, { at: `${DAY}T09:05:00.000Z`, ua: null });
    await visit(t, tag.short_id, { at: `${DAY}T09:06:00.000Z`, ua: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' });
    // A HEAD is no request for the page, by a bot or anyone.
    await visit(t, tag.short_id, { at: `${DAY}T09:07:00.000Z`, ua: UA.googlebot, method: 'HEAD' });
    await visit(t, tag.short_id, { at: `${DAY}T09:08:00.000Z`, method: 'HEAD' });
    // Three views by people.
    await view(t, tag.short_id, { at: `${DAY}T08:15:00.000Z`, visitor: visitorId('ann') });
    await view(t, tag.short_id, { at: `${DAY}T09:15:00.000Z`, visitor: visitorId('ann') });
    await view(t, tag.short_id, { at: `${DAY}T09:25:00.000Z`, ua: UA.firefoxLinux, visitor: visitorId('bob'), scan: true });
    // And one bot request the next day, outside the period asked for.
    await visit(t, tag.short_id, { at: `${NEXT_DAY}T00:05:00.000Z`, ua: UA.googlebot });

    const period = { start_date: DAY, end_date: NEXT_DAY };
    for (const granularity of ['hour', 'day']) {
      const report = await getData(t, owner.key, `/v1/tags/${tag.id}/analytics`, { ...period, granularity });
      expect(report.summary).toEqual({
        total_views: 3,
        unique_views: 2,
        qr_scans: 1,
        direct_visits: 2,
        average_time_seconds: 0,
        bot_views: 5,
      });
      expect(report.timeseries.reduce((sum: number, bucket: { views: number }) => sum + bucket.views, 0)).toBe(3);
    }
    const overview = await getData(t, owner.key, '/v1/analytics/overview', period);
    expect(overview.totals).toMatchObject({ views: 3, qr_scans: 1, bot_views: 5 });
    expect(overview.by_day).toEqual([{ date: DAY, views: 3, scans: 1 }]);

    const twoDays = { start_date: DAY, end_date: '2026-04-05' };
    expect((await getData(t, owner.key, `/v1/tags/${tag.id}/analytics`, twoDays)).summary).toMatchObject({ total_views: 3, bot_views: 6 });
    expect((await getData(t, owner.key, '/v1/analytics/overview', twoDays)).totals).toMatchObject({ views: 3, bot_views: 6 });

    // Counted once: a second report adds nothing.
    expect((await getData(t, owner.key, `/v1/tags/${tag.id}/analytics`, twoDays)).summary.bot_views).toBe(6);
  });

  it('compare=previous compares bot requests too', async () => {
    const tag = await createTag(t, pro.key);
    for (let i = 0; i < 2; i++) await visit(t, tag.short_id, { at: `${DAY}T10:0${i}:00.000Z`, ua: UA.googlebot });
    for (let i = 0; i < 3; i++) await visit(t, tag.short_id, { at: `${NEXT_DAY}T10:0${i}:00.000Z`, ua: UA.googlebot });
    const report = await getData(t, pro.key, `/v1/tags/${tag.id}/analytics`, {
      start_date: NEXT_DAY,
      end_date: '2026-04-05',
      compare: 'previous',
    });
    expect(report.summary.bot_views).toBe(3);
    expect(report.previous.summary.bot_views).toBe(2);
    expect(report.change.bot_views).toBe(50);
  });

  it("a tag only bots requested is no top tag; a deleted tag's bot requests leave the overview", async () => {
    const owner = await createAccount(t, 'pro');
    const viewed = await createTag(t, owner.key, { title: 'Viewed' });
    const crawled = await createTag(t, owner.key, { title: 'Only crawled' });
    await view(t, viewed.short_id, { at: `${DAY}T11:00:00.000Z`, visitor: visitorId('cy') });
    await visit(t, viewed.short_id, { at: `${DAY}T11:01:00.000Z`, ua: UA.googlebot });
    for (let i = 0; i < 4; i++) await visit(t, crawled.short_id, { at: `${DAY}T11:0${i + 2}:00.000Z`, ua: UA.curl });
    const period = { start_date: DAY, end_date: NEXT_DAY };

    const overview = await getData(t, owner.key, '/v1/analytics/overview', period);
    expect(overview.totals).toMatchObject({ views: 1, bot_views: 5 });
    expect(overview.top_tags).toEqual([{ id: viewed.id, title: 'Viewed', views: 1 }]);

    const deleted = await request(t, 'DELETE', `/v1/tags/${crawled.id}`, { key: owner.key });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await getData(t, owner.key, '/v1/analytics/overview', period)).totals).toMatchObject({ views: 1, bot_views: 1 });
  });

  it('bot requests counted for a tag deleted before they are stored are dropped with it', async () => {
    const owner = await createAccount(t, 'pro');
    const kept = await createTag(t, owner.key);
    const gone = await createTag(t, owner.key);
    await visit(t, kept.short_id, { at: `${DAY}T12:00:00.000Z`, ua: UA.googlebot });
    await visit(t, gone.short_id, { at: `${DAY}T12:01:00.000Z`, ua: UA.googlebot });
    // Deleted while its bot request is still counted in memory.
    expect((await request(t, 'DELETE', `/v1/tags/${gone.id}`, { key: owner.key })).status).toBe(200);
    const overview = await getData(t, owner.key, '/v1/analytics/overview', { start_date: DAY, end_date: NEXT_DAY });
    expect(overview.totals.bot_views).toBe(1);
    const rows = await t.database.db.selectFrom('tag_hourly').select('tag_id').where('tag_id', 'in', [kept.id, gone.id]).execute();
    expect(rows).toEqual([{ tag_id: kept.id }]);
  });
});

describe('bot requests counted when the server stops are stored', () => {
  it('a server that stops stores its counts before it closes the database', async () => {
    const first = await startTestApp({ env: { TRUST_PROXY: 'loopback' } });
    const owner = await createAccount(first, 'pro');
    const tag = await createTag(first, owner.key);
    await visit(first, tag.short_id, { at: '2026-04-03T13:00:00.000Z', ua: UA.googlebot });
    await visit(first, tag.short_id, { at: '2026-04-03T13:30:00.000Z', ua: UA.googlebot });
    // Stopped as the server stops (server.ts), leaving its data behind; no report asked first.
    await first.app.close();
    await first.services.close();

    const second = await startTestApp({ env: first.env });
    try {
      const rows = await second.database.db
        .selectFrom('tag_hourly')
        .select(['hour', 'views', 'bot_views'])
        .where('tag_id', '=', tag.id)
        .execute();
      expect(rows).toEqual([{ hour: '2026-04-03T13:00:00Z', views: 0, bot_views: 2 }]);
      const daily = await second.database.db
        .selectFrom('tag_daily')
        .select(['day', 'views', 'bot_views'])
        .where('tag_id', '=', tag.id)
        .execute();
      expect(daily).toEqual([{ day: '2026-04-03', views: 0, bot_views: 2 }]);
    } finally {
      await second.close();
    }
  });
});
