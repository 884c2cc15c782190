import type { ServiceContext } from '../../context.js';
import { requirePermission, type Actor } from '../accounts/index.js';
import { isWebLink, requireTag, type Block } from '../tags/index.js';
import * as repo from './clicks.repository.js';
import { Calendar, checkTimeZone, type ZoneQuery } from './calendar.js';
import { periodFor, type DateQuery } from './period.js';

/**
 * A tag's link clicks over a period. `blocks` lists the tag's current web link blocks, in the
 * page's order, each with its clicks (0 when never clicked); tel:, mailto: and sms: links are
 * not listed, for they are never counted. `total_clicks` counts every click of the period,
 * those of link blocks since removed too, so it can exceed the sum of `blocks`. Clicks are
 * committed before their redirect is answered: a report counts every click answered before it.
 */
export async function linkClickReport(ctx: ServiceContext, actor: Actor, { id: tagId, ...query }: { id: string } & DateQuery & ZoneQuery) {
  requirePermission(actor, 'analytics:read');
  const zone = checkTimeZone(query.timezone);
  const tag = await requireTag(ctx, actor, tagId);
  const calendar = new Calendar(zone, periodFor(ctx, actor, query, zone));
  const range = { from: new Date(calendar.from).toISOString(), to: new Date(calendar.to).toISOString() };
  const counted = new Map((await repo.clicksByBlock(ctx.db, tag.id, range)).map((row) => [row.block_id, row]));
  let total = 0;
  for (const row of counted.values()) total += Number(row.clicks);
  const links = (JSON.parse(tag.content) as Block[]).filter(
    (block): block is Extract<Block, { type: 'link' }> => block.type === 'link' && isWebLink(block.url),
  );
  return {
    tag_id: tag.id,
    period: calendar.period,
    timezone: zone,
    total_clicks: total,
    blocks: links.map((link) => {
      const row = counted.get(link.id);
      return {
        block_id: link.id,
        url: link.url,
        label: link.label,
        clicks: Number(row?.clicks ?? 0),
        unique_clicks: Number(row?.unique_clicks ?? 0),
      };
    }),
  };
}
