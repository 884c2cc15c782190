import type { LinkState } from '../../features/accounts/index.js';
import { Alert, CsrfField, ErrorSummary, Field, NewPasswordFields, SubmitButton } from '../components/forms.js';
import { renderCardPage } from '../components/layout.js';

/** The screens a mailed link leads to (forgot password, verify an address), and the form that asks for one. */

/** What the screens that send mail add while SMTP_URL is not set: the mail goes to the server's log. */
const MAIL_NOT_CONFIGURED =
  'Mail is not configured on this server, so no mail leaves it: ask the operator for the link, which is in the server log.';

export function MailNotice({ configured }: { configured: boolean }) {
  return configured ? null : <Alert kind="info">{MAIL_NOT_CONFIGURED}</Alert>;
}

const BACK_TO_SIGN_IN = (
  <p class="switch">
    Remembered it? <a href="/dashboard/login">Sign in</a>
  </p>
);

export function renderForgotPassword(state: { csrf: string; email?: string; error?: string; sent?: boolean; mailConfigured: boolean }) {
  return renderCardPage(
    state,
    'Reset your password',
    <>
      <h1>Reset your password</h1>
      {state.sent ? (
        <>
          <Alert kind="success">
            If an account uses {state.email}, a link to choose a new password is on its way there. The link works once, for one hour.
          </Alert>
          <MailNotice configured={state.mailConfigured} />
          <p>No mail after a few minutes? Check the spam folder, or the spelling of the address, and ask again.</p>
        </>
      ) : (
        <>
          <p class="lead">Give the email address of your account, and we mail it a link to choose a new password.</p>
          {state.error && <Alert kind="error">{state.error}</Alert>}
          <MailNotice configured={state.mailConfigured} />
          <form method="post" action="/dashboard/forgot-password" class="stack">
            <CsrfField token={state.csrf} />
            <Field name="email" label="Email" type="email" autocomplete="username" value={state.email} autofocus />
            <SubmitButton>Send the link</SubmitButton>
          </form>
        </>
      )}
      {BACK_TO_SIGN_IN}
    </>,
  );
}

const LINK_PROBLEMS: Record<Exclude<LinkState, 'valid'>, { title: string; text: string }> = {
  used: { title: 'This link was already used', text: 'Each link works once.' },
  expired: { title: 'This link has expired', text: 'The link was too old to use.' },
  unknown: { title: 'This link does not work', text: 'It may be incomplete: copy the whole address from the mail.' },
};

/** A link that does not work: why, and where to get a new one. */
export function renderLinkProblem(csrf: string, state: Exclude<LinkState, 'valid'>, next: { href: string; label: string }) {
  const problem = LINK_PROBLEMS[state];
  return renderCardPage(
    { csrf },
    problem.title,
    <>
      <h1>{problem.title}</h1>
      <p class="lead">{problem.text}</p>
      <p>
        <a class="button button-primary" href={next.href}>
          {next.label}
        </a>
      </p>
      {BACK_TO_SIGN_IN}
    </>,
  );
}

export function renderResetPassword(state: { csrf: string; token: string; fieldErrors?: Record<string, string> }) {
  const errors = state.fieldErrors ?? {};
  return renderCardPage(
    state,
    'Choose a new password',
    <>
      <h1>Choose a new password</h1>
      <p class="lead">Setting it signs this account out everywhere; then sign in with the new password.</p>
      <ErrorSummary errors={errors} intro="Your password was not changed." order={['password', 'confirm']} />
      <form method="post" action="/dashboard/reset-password" class="stack">
        <CsrfField token={state.csrf} />
        <input type="hidden" name="token" value={state.token} />
        <NewPasswordFields name="password" label="New password" errors={errors} />
        <SubmitButton>Set the new password</SubmitButton>
      </form>
    </>,
  );
}

export function renderVerifyEmail(state: { csrf: string; token: string }) {
  return renderCardPage(
    state,
    'Confirm your email address',
    <>
      <h1>Confirm your email address</h1>
      <p class="lead">One click confirms that the address of your account is yours; then you can create API keys.</p>
      <form method="post" action="/dashboard/verify-email" class="stack">
        <CsrfField token={state.csrf} />
        <input type="hidden" name="token" value={state.token} />
        <SubmitButton>Confirm my address</SubmitButton>
      </form>
    </>,
  );
}
