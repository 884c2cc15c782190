import { CopyButton } from '../components/forms.js';
import { AccountFacts, renderAppPage, type PageContext } from '../components/layout.js';
import { formatNumber, When } from '../components/table.js';
import { tagPath } from '../tags/tag-header.js';
import type { SignedInUser } from '../../features/accounts/index.js';

export interface HomePage {
  /** The API's origin, for the example request. */
  origin: string;
  /** The workspace's most recently changed tags, and how many it holds. */
  recent: { total: number; tags: ReadonlyArray<{ id: string; title: string; short_id: string; updated_at: string }> };
}

function RecentTags({ recent }: { recent: HomePage['recent'] }) {
  return (
    <section class="card" aria-labelledby="recent-heading">
      <div class="card-head">
        <h2 id="recent-heading">Recent tags</h2>
        <a class="button button-primary" href="/dashboard/tags/new">
          New Tag
        </a>
      </div>
      {recent.total === 0 ? (
        <p class="muted">No tags here yet. A tag is a page with a short address and a QR code: make the first one.</p>
      ) : (
        <>
          <ul class="recent-list">
            {recent.tags.map((tag) => (
              <li key={tag.id}>
                <a href={tagPath(tag)}>{tag.title}</a>
                <code class="muted">{`/t/${tag.short_id}`}</code>
                <span class="muted">
                  Updated <When at={tag.updated_at} />
                </span>
              </li>
            ))}
          </ul>
          <p>
            <a href="/dashboard/tags">{`All ${formatNumber(recent.total)} tags`}</a>
          </p>
        </>
      )}
    </section>
  );
}

/** /dashboard: the workspace's recent tags, the account, and how to call the API. */
export function renderHome(context: PageContext & { user: SignedInUser }, page: HomePage): string {
  const { user } = context;
  const command = `curl -H "Authorization: Bearer svc_live_…" ${page.origin}/v1/me`;
  return renderAppPage(
    context,
    'Home',
    <>
      <h1>Home</h1>
      <RecentTags recent={page.recent} />
      <div class="grid">
        <section class="card" aria-labelledby="account-heading">
          <h2 id="account-heading">Your account</h2>
          <AccountFacts user={user}>
            {user.isOwner && (
              <div>
                <dt>Role</dt>
                <dd>Owner of this instance</dd>
              </div>
            )}
          </AccountFacts>
          <p>
            <a href="/dashboard/account">Change your password</a>
          </p>
        </section>
        <section class="card" aria-labelledby="api-heading">
          <h2 id="api-heading">Use the API</h2>
          <p>
            <a href="/dashboard/keys">Create an API key</a>, copy it, then send it as a Bearer token.
          </p>
          <div class="code">
            <pre id="key-command" tabindex={0}>
              <code>{command}</code>
            </pre>
            <CopyButton target="key-command" />
          </div>
          <p>
            <a href="/docs">API reference</a>
          </p>
        </section>
      </div>
    </>,
  );
}
