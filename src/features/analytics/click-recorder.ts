import type { Db } from '../../db/database.js';
import type { TagsTable } from '../../db/schema.js';
import { transaction } from '../../db/transaction.js';
import type { Metrics } from '../../lib/metrics.js';
import type { Logger } from 'pino';
import { emitAll, eventOf, type EventInput, type EventOwner } from '../events/index.js';
import { subscribedEventTypes } from '../webhooks/index.js';
import * as repo from './clicks.repository.js';
import { GroupCommit } from './group-commit.js';

/** A counted click of a web link block, as its redirect records it. */
export interface RecordedClick {
  tag: Pick<TagsTable, 'id' | 'short_id' | 'title' | 'environment' | 'owner_id' | 'organization_id'>;
  block: { id: string; url: string; label: string };
  occurred_at: string;
  visitor: string;
}

/** Clicks a group takes at most: its one parameter stays a few tens of kilobytes. */
const MAX_GROUP = 500;

const scopeKey = (owner: EventOwner) => `${owner.environment}|${owner.organization_id ?? owner.owner_id}`;

/**
 * Link clicks, committed in groups (group-commit.ts) straight into link_clicks: one statement a
 * group, and its link.clicked events in the same transaction for the scopes whose webhooks
 * take them. The redirect is answered once its click is committed, as a page once its view is.
 * Unlike views there is no inbox to ingest: a click is one narrow row and no rollup, so the
 * row itself is written at once, and a report counts the rows.
 *
 * Which scopes take link.clicked is read before the group's transaction: most take none, and
 * their group is then one statement that commits by itself. A webhook enabled meanwhile gets
 * the events of the clicks after it, as one would expect; one disabled meanwhile gets none, for
 * the dispatcher matches events to the webhooks enabled when it dispatches.
 */
export class ClickRecorder {
  private readonly groups: GroupCommit<RecordedClick>;

  constructor(
    private readonly db: Db,
    log: Pick<Logger, 'error'>,
    private readonly metrics?: Metrics,
  ) {
    this.groups = new GroupCommit({ unit: 'clicks', maxGroup: MAX_GROUP, write: (clicks) => this.write(clicks) }, log);
  }

  /** Resolves once the click is committed. */
  record(click: RecordedClick): Promise<void> {
    return this.groups.add(click);
  }

  /** Waits for everything queued so far (shutdown). */
  flush(): Promise<void> {
    return this.groups.flush();
  }

  private async write(clicks: RecordedClick[]): Promise<void> {
    const group = {
      records: JSON.stringify(clicks.map((click) => [click.tag.id, click.block.id, click.occurred_at, click.visitor])),
      tagIds: [...new Set(clicks.map((click) => click.tag.id))],
    };
    const wanted = await this.scopesTakingEvents(clicks);
    if (wanted.size === 0) {
      await repo.storeClicks(this.db, group);
    } else {
      await transaction(this.db, async (trx) => {
        const stored = await repo.storeClicksOfTags(trx, group);
        const events = clicks
          .filter((click) => stored.has(click.tag.id) && wanted.has(scopeKey(click.tag)))
          .map((click) => clickedEvent(click));
        if (events.length > 0) await emitAll(trx, events);
      });
    }
    this.metrics?.linkClicksRecorded.inc(clicks.length);
  }

  /** The scopes of the group's tags with an enabled webhook that takes link.clicked. */
  private async scopesTakingEvents(clicks: RecordedClick[]): Promise<Set<string>> {
    const scopes = new Map<string, EventOwner>();
    for (const { tag } of clicks) scopes.set(scopeKey(tag), tag);
    const wanted = new Set<string>();
    for (const [key, scope] of scopes) if ((await subscribedEventTypes(this.db, scope)).has('link.clicked')) wanted.add(key);
    return wanted;
  }
}

function clickedEvent({ tag, block, occurred_at }: RecordedClick): EventInput<'link.clicked'> {
  return eventOf(
    tag,
    'link.clicked',
    {
      tag: { id: tag.id, short_id: tag.short_id, title: tag.title },
      click: { block_id: block.id, url: block.url, label: block.label, occurred_at },
    },
    occurred_at,
  );
}
