import type { PageState } from '../../features/tags/index.js';

/** What each state of a tag's page is called in the list and the tag's header. */
const STATE_LABELS: Record<PageState, string> = { draft: 'Draft', scheduled: 'Scheduled', live: 'Live', expired: 'Expired' };

/** A stored time (UTC), as `2026-11-25 10:37 UTC`; dashboard.js shows it in the reader's time zone. */
export function LocalTime({ at }: { at: string }) {
  return (
    <time datetime={at} data-local="">
      {`${at.slice(0, 10)} ${at.slice(11, 16)} UTC`}
    </time>
  );
}

/**
 * The page's state as a badge: Draft, Scheduled, Live, Expired, or, for a live page behind a
 * password, Locked. `publishAt` turns Scheduled into "Scheduled for <time>".
 */
export function StateBadge({ state, locked, publishAt }: { state: PageState; locked: boolean; publishAt?: string | null }) {
  if (state === 'live' && locked) return <span class="state state-locked">Locked</span>;
  return (
    <span class={`state state-${state}`}>
      {state === 'scheduled' && publishAt ? (
        <>
          {'Scheduled for '}
          <LocalTime at={publishAt} />
        </>
      ) : (
        STATE_LABELS[state]
      )}
    </span>
  );
}
