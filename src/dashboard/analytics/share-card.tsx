import type { SignedInUser } from '../../features/accounts/index.js';
import type { ShareView } from '../../features/shares/index.js';
import { Alert, ConfirmButton, CopyButton, CsrfField, ErrorSummary, Field, SelectField, SubmitButton } from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import { When } from '../components/table.js';
import { TagHeader, tagPath } from '../tags/tag-header.js';
import type { UserTag } from '../tags/user-tag.js';

/** How long a new share link lasts: the form's choices, in days ('never': until revoked). */
export const SHARE_LIFETIMES = [
  { value: 'never', label: 'Never (until revoked)' },
  { value: '1', label: 'In 1 day' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
] as const;

export interface ShareForm {
  values: { expires: string };
  errors: Record<string, string>;
}

export const EMPTY_SHARE_FORM: ShareForm = { values: { expires: 'never' }, errors: {} };

export interface ShareCardProps {
  tag: { id: string; title: string };
  csrf: string;
  shares: readonly ShareView[];
  form: ShareForm;
  notice?: string;
  /** The time the page is shown at (ISO): a share past its expiry says it has expired. */
  now: string;
}

export const sharesPath = (tag: { id: string }) => `${tagPath(tag, 'analytics')}/shares`;
export const revokePath = (tag: { id: string }, shareId: string) => `${sharesPath(tag)}/${encodeURIComponent(shareId)}/revoke`;

function ShareRow({ tag, csrf, share, now }: { tag: ShareCardProps['tag']; csrf: string; share: ShareView; now: string }) {
  const urlId = `share-url-${share.id}`;
  const expired = share.expires_at !== null && share.expires_at <= now;
  return (
    <li class="share">
      <div class="share-link">
        <code id={urlId} class="share-url">
          {share.url}
        </code>
        <CopyButton target={urlId} what="the share link" />
      </div>
      <p class="share-meta muted">
        {'Created '}
        <When at={share.created_at} />
        {' · '}
        {share.expires_at === null ? (
          'never expires'
        ) : (
          <>
            {expired ? 'expired ' : 'expires '}
            <When at={share.expires_at} />
          </>
        )}
        {share.password_protected ? ' · password protected' : ''}
      </p>
      <ConfirmButton
        csrf={csrf}
        action={revokePath(tag, share.id)}
        question="Revoke this share link? Whoever has it sees “Page not found” from now on."
        label="Revoke"
        danger
      />
    </li>
  );
}

/**
 * The Share card of a tag's analytics: its share links (each with Copy and Revoke) and a form
 * for a new one, with an optional expiry and password. Plain forms: it works without scripts.
 */
export function ShareCard({ tag, csrf, shares, form, notice, now }: ShareCardProps) {
  return (
    <section class="card" id="share" aria-labelledby="share-heading">
      <h2 id="share-heading">Share</h2>
      <p class="muted">
        A share link shows this tag’s summary, chart and breakdowns to anyone who has it, without an account. It shows no access log and no
        export. Revoke it to stop it at once.
      </p>
      {notice && <Alert kind="success">{notice}</Alert>}
      <ErrorSummary errors={form.errors} intro="No link was created." order={['expires', 'password']} />
      {shares.length === 0 ? (
        <p class="muted">No share links yet.</p>
      ) : (
        <ul class="shares" aria-label="Share links">
          {shares.map((share) => (
            <ShareRow key={share.id} tag={tag} csrf={csrf} share={share} now={now} />
          ))}
        </ul>
      )}
      <form method="post" action={sharesPath(tag)} class="share-form">
        <CsrfField token={csrf} />
        <SelectField name="expires" label="Expires" options={SHARE_LIFETIMES} value={form.values.expires} error={form.errors.expires} />
        <Field
          name="password"
          label="Password (optional)"
          type="password"
          autocomplete="new-password"
          required={false}
          hint="4 to 128 characters. Viewers enter it before they see the report."
          error={form.errors.password}
        />
        <div class="actions">
          <SubmitButton>Create share link</SubmitButton>
        </div>
      </form>
    </section>
  );
}

/** The Share card alone, under the tag's header: the answer to a refused form, with its problems. */
export function renderSharePage(
  context: PageContext & { user: SignedInUser },
  tag: UserTag,
  card: Pick<ShareCardProps, 'shares' | 'form' | 'now'>,
): string {
  return renderAppPage(
    context,
    `Share · ${tag.title}`,
    <>
      <TagHeader tag={tag} current="analytics" />
      <ShareCard tag={tag} csrf={context.csrf} {...card} />
    </>,
  );
}
