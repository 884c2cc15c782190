import type { SignedInUser } from '../../features/accounts/index.js';
import { Alert, ConfirmButton, CopyButton } from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import { formatNumber, When } from '../components/table.js';
import { TagHeader, tagPath } from './tag-header.js';
import type { UserTag } from './user-tag.js';
import { READ_LABELS, WRITE_LABELS } from './tag-settings.js';
import { showsTestData } from '../workspace/workspaces.js';

export interface TagOverviewPage {
  tag: UserTag;
  /** The name of the tag's folder, when it is in one. */
  folderName?: string;
  /** The analytics summary of `period` (the API's for the same days). */
  stats: { views: number; visitors: number; scans: number };
  /** Whole UTC days, `end` exclusive (as the analytics API reports them). */
  period: { start: string; end: string };
  notice?: string;
}

/** The last day of a period whose `end` is the day after it. */
function lastDay(end: string): string {
  return new Date(Date.parse(`${end}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}

function Stats({ page }: { page: TagOverviewPage }) {
  const items = [
    { label: 'Views', value: page.stats.views },
    { label: 'Unique visitors', value: page.stats.visitors },
    { label: 'QR scans', value: page.stats.scans },
  ];
  return (
    <section class="card" aria-labelledby="stats-heading">
      <div class="card-head">
        <h2 id="stats-heading">Last 30 days</h2>
        <a href={tagPath(page.tag, 'analytics')}>Open analytics</a>
      </div>
      <dl class="stats">
        {items.map((item) => (
          <div key={item.label} class="stat">
            <dt>{item.label}</dt>
            <dd>{formatNumber(item.value)}</dd>
          </div>
        ))}
      </dl>
      <p class="field-hint">{`${page.period.start} to ${lastDay(page.period.end)}, UTC, today included.`}</p>
    </section>
  );
}

function Facts({ page }: { page: TagOverviewPage }) {
  const { tag } = page;
  return (
    <section class="card" aria-labelledby="facts-heading">
      <h2 id="facts-heading">Details</h2>
      <dl class="facts">
        <div>
          <dt>Short address</dt>
          <dd>
            <code>{tag.short_id}</code>
          </dd>
        </div>
        <div>
          <dt>Folder</dt>
          <dd>{page.folderName ?? <span class="muted">None</span>}</dd>
        </div>
        <div>
          <dt>Visibility</dt>
          <dd>{READ_LABELS[tag.permissions.read] ?? tag.permissions.read}</dd>
        </div>
        <div>
          <dt>Who can edit</dt>
          <dd>{WRITE_LABELS[tag.permissions.write] ?? tag.permissions.write}</dd>
        </div>
        <div>
          <dt>Access log</dt>
          <dd>{tag.access_logging ? 'Kept' : 'Off'}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <When at={tag.created_at} />
          </dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <When at={tag.updated_at} />
          </dd>
        </div>
      </dl>
    </section>
  );
}

/** /dashboard/tags/{id}: the tag's address, its numbers of the last 30 days, its settings, and Delete. */
export function renderTagOverview(context: PageContext & { user: SignedInUser }, page: TagOverviewPage): string {
  const { tag } = page;
  return renderAppPage(
    context,
    tag.title,
    <>
      <TagHeader tag={tag} current="" />
      {page.notice && <Alert kind="success">{page.notice}</Alert>}
      <section class="card" aria-labelledby="address-heading">
        <h2 id="address-heading">{showsTestData(context.workspaces) ? 'Test page' : 'Public page'}</h2>
        <div class="code">
          <pre id="tag-url" tabindex={0}>
            <code>{tag.url}</code>
          </pre>
          <CopyButton target="tag-url" />
          <a class="button button-quiet" href={tag.url} target="_blank" rel="noopener">
            Open
          </a>
        </div>
        <div class="actions">
          <a class="button button-secondary" href={tagPath(tag, 'edit')}>
            Edit content
          </a>
        </div>
      </section>
      <Stats page={page} />
      <Facts page={page} />
      <section class="card card-danger" aria-labelledby="delete-heading">
        <h2 id="delete-heading">Delete this tag</h2>
        <p class="muted">Its page, files and analytics go for good; its short address is never given out again.</p>
        <ConfirmButton
          csrf={context.csrf}
          action={`${tagPath(tag)}/delete`}
          question={`Delete “${tag.title}”? Its page, files and analytics go for good.`}
          label="Delete tag"
          danger
        />
      </section>
    </>,
  );
}
