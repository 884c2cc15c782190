import { CopyButton } from './forms.js';
import { AccountFacts, renderAppPage, type PageContext } from './layout.js';
import type { SignedInUser } from '../../features/accounts/index.js';

export function renderHome(context: PageContext & { user: SignedInUser }, origin: string): string {
  const { user } = context;
  const command = `curl -H "Authorization: Bearer svc_live_…" ${origin}/v1/me`;
  return renderAppPage(
    context,
    'Home',
    <>
      <h1>Home</h1>
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
