import type { InviteState, InviteView } from '../../features/accounts/index.js';
import { Alert, CsrfField, ErrorSummary, NewPasswordFields, SubmitButton } from '../components/forms.js';
import { renderCardPage } from '../components/layout.js';
import { renderMessage } from '../components/message.js';
import { ROLE_DESCRIPTIONS, ROLE_LABELS } from '../components/roles.js';

/** The page an invitation's mailed link opens: who invites, to what role, and how to accept. */

const ENDED: Record<Exclude<InviteState, 'valid'>, { title: string; text: string }> = {
  accepted: { title: 'This invitation was already accepted', text: 'Sign in to work in the organization.' },
  revoked: { title: 'This invitation was withdrawn', text: 'Ask the organization’s owner or an admin for a new one.' },
  expired: { title: 'This invitation has expired', text: 'Invitations work for seven days. Ask for a new one.' },
  unknown: { title: 'This invitation link does not work', text: 'It may be incomplete: copy the whole address from the mail.' },
};

export function renderInviteEnded(csrf: string, state: Exclude<InviteState, 'valid'>) {
  const { title, text } = ENDED[state];
  return renderMessage(csrf, title, text, { href: '/dashboard/login', label: 'Sign in' });
}

export interface InvitePage {
  csrf: string;
  token: string;
  invite: InviteView;
  /** The signed-in user's address, if anyone is signed in. */
  signedInAs?: string;
  /** Whether an account has the invited address already. */
  hasAccount: boolean;
  errors?: Record<string, string>;
}

function Invitation({ invite }: { invite: InviteView }) {
  return (
    <>
      <h1>Join {invite.organization_name}</h1>
      <p class="lead">
        {invite.invited_by ?? 'Its owner'} invited {invite.email} to join {invite.organization_name} as{' '}
        {invite.role === 'admin' || invite.role === 'editor' ? 'an' : 'a'} <strong>{ROLE_LABELS[invite.role].toLowerCase()}</strong>.
      </p>
      <p>{ROLE_DESCRIPTIONS[invite.role]}</p>
    </>
  );
}

/** What the invited person can do from here: accept, sign in first, or create the account. */
function NextStep({ page }: { page: InvitePage }) {
  const { invite, signedInAs, csrf, token } = page;
  const errors = page.errors ?? {};
  if (signedInAs && signedInAs !== invite.email) {
    return (
      <Alert kind="error">
        You are signed in as {signedInAs}, and this invitation is for {invite.email}. Sign out, then open the link again.
      </Alert>
    );
  }
  if (!signedInAs && page.hasAccount) {
    return (
      <>
        <p>An account already uses {invite.email}. Sign in to it, then open this link again, or accept on the Organizations page.</p>
        <p>
          <a class="button button-primary" href="/dashboard/login">
            Sign in
          </a>
        </p>
      </>
    );
  }
  return (
    <form method="post" action="/dashboard/invites/accept" class="stack">
      <CsrfField token={csrf} />
      <input type="hidden" name="token" value={token} />
      {!signedInAs && (
        <>
          <p>Choose a password for your new account at {invite.email}.</p>
          <ErrorSummary errors={errors} intro="Nothing was created." order={['password', 'confirm']} />
          <NewPasswordFields name="password" label="Password" errors={errors} />
        </>
      )}
      <SubmitButton>{signedInAs ? `Join ${invite.organization_name}` : 'Create account and join'}</SubmitButton>
    </form>
  );
}

export function renderInvite(page: InvitePage) {
  return renderCardPage(
    page,
    `Join ${page.invite.organization_name}`,
    <>
      <Invitation invite={page.invite} />
      <NextStep page={page} />
    </>,
  );
}
