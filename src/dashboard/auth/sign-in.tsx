import { Alert, CsrfField, ErrorSummary, Field, NewPasswordFields, SubmitButton } from '../components/forms.js';
import { renderCardPage } from '../components/layout.js';
import { MailNotice } from './password-reset.js';
import { PASSKEY_SCRIPTS, PasskeyForm } from './passkey-form.js';

/** The signed-out screens: sign-in, first-run setup and sign-up. Each re-renders with its error. */

export interface FormState {
  csrf: string;
  email?: string;
  /** A message about the whole form (wrong credentials, throttling). */
  error?: string;
  /** Messages about single fields, by field name. */
  fieldErrors?: Record<string, string>;
}

export function renderSignIn(state: FormState & { signupOpen: boolean; notice?: string }): string {
  return renderCardPage(
    state,
    'Sign in',
    <>
      <h1>Sign in</h1>
      <p class="lead">Welcome back. Sign in to manage your tags.</p>
      {state.notice && <Alert kind="success">{state.notice}</Alert>}
      {state.error && <Alert kind="error">{state.error}</Alert>}
      <form method="post" action="/dashboard/login" class="stack">
        <CsrfField token={state.csrf} />
        {/* After a failed attempt the email is filled in: the password is what to type next. */}
        <Field name="email" label="Email" type="email" autocomplete="username" value={state.email} autofocus={!state.email} />
        <Field name="password" label="Password" type="password" autocomplete="current-password" autofocus={!!state.email} />
        <SubmitButton>Sign in</SubmitButton>
      </form>
      <p class="switch">
        <a href="/dashboard/forgot-password">Forgot your password?</a>
      </p>
      <PasskeyForm csrf={state.csrf} ceremony="sign-in" action="/dashboard/login/passkey" options="/dashboard/login/passkey/options">
        <p class="or">or</p>
        <button type="submit" class="button button-secondary">
          Sign in with a passkey
        </button>
      </PasskeyForm>
      {state.signupOpen && (
        <p class="switch">
          New here? <a href="/dashboard/signup">Create an account</a>
        </p>
      )}
    </>,
    { scripts: PASSKEY_SCRIPTS },
  );
}

/** The authenticator app's 6-digit code: the browser may fill it in, a phone shows digits. */
export function CodeField({ hint, error }: { hint: string; error?: string }) {
  return (
    <Field name="code" label="Authentication code" autocomplete="one-time-code" inputmode="numeric" hint={hint} error={error} autofocus />
  );
}

interface SecondFactorState {
  csrf: string;
  email: string;
  totp: boolean;
  passkeys: number;
  error?: string;
  fieldErrors?: Record<string, string>;
}

/**
 * The second step of a password sign-in: the authenticator's code, a passkey, or a recovery
 * code (in a form of its own: it has letters, the code field shows a phone's digit keyboard).
 */
export function renderSecondFactor(state: SecondFactorState): string {
  const errors = state.fieldErrors ?? {};
  return renderCardPage(
    state,
    'Two-factor sign-in',
    <>
      <h1>Two-factor sign-in</h1>
      <p class="lead">
        Signing in as <strong>{state.email}</strong>.{' '}
        {state.totp ? 'Enter the code your authenticator app shows.' : 'Use your passkey to finish signing in.'}
      </p>
      {state.error && <Alert kind="error">{state.error}</Alert>}
      {state.totp && (
        <form method="post" action="/dashboard/login/second-factor" class="stack">
          <CsrfField token={state.csrf} />
          <CodeField hint="6 digits, from your authenticator app." error={errors.code} />
          <SubmitButton>Verify</SubmitButton>
        </form>
      )}
      {state.passkeys > 0 && (
        <PasskeyForm
          csrf={state.csrf}
          ceremony="sign-in"
          action="/dashboard/login/second-factor/passkey"
          options="/dashboard/login/second-factor/passkey/options"
        >
          {state.totp && <p class="or">or</p>}
          <button type="submit" class={state.totp ? 'button button-secondary' : 'button button-primary'}>
            Use a passkey
          </button>
        </PasskeyForm>
      )}
      <details class="recovery" open={errors.recovery_code !== undefined}>
        <summary>Use a recovery code</summary>
        <form method="post" action="/dashboard/login/second-factor" class="stack">
          <CsrfField token={state.csrf} />
          <Field
            name="recovery_code"
            label="Recovery code"
            autocomplete="off"
            hint="One of the ten codes you saved when you set up two-factor sign-in. Each works once."
            error={errors.recovery_code}
          />
          <SubmitButton>Use recovery code</SubmitButton>
        </form>
      </details>
      <p class="switch">
        Not you? <a href="/dashboard/login">Start again</a>
      </p>
    </>,
    { scripts: PASSKEY_SCRIPTS },
  );
}

/** The form of a new account: email, password and confirmation (first-run setup and sign-up). */
function NewAccountForm({ action, state }: { action: string; state: FormState }) {
  const errors = state.fieldErrors ?? {};
  return (
    <>
      {state.error && <Alert kind="error">{state.error}</Alert>}
      <ErrorSummary errors={errors} intro="No account was created." order={['email', 'password', 'confirm']} />
      <form method="post" action={action} class="stack">
        <CsrfField token={state.csrf} />
        <Field name="email" label="Email" type="email" autocomplete="username" value={state.email} error={errors.email} autofocus />
        <NewPasswordFields name="password" label="Password" errors={errors} />
        <SubmitButton>Create account</SubmitButton>
      </form>
    </>
  );
}

export function renderSetup(state: FormState): string {
  return renderCardPage(
    state,
    'Set up tagsvc',
    <>
      <h1>Set up tagsvc</h1>
      <p class="lead">
        Create the first account. It becomes the owner of this instance, on the Enterprise plan, and you are signed in right away.
      </p>
      <NewAccountForm action="/dashboard/setup" state={state} />
    </>,
  );
}

export function renderSignUp(state: FormState & { mailConfigured: boolean }): string {
  return renderCardPage(
    state,
    'Create an account',
    <>
      <h1>Create an account</h1>
      <p class="lead">Start publishing tags: pages with short addresses and QR codes.</p>
      <p>We mail you a link to confirm your address. Until you follow it you can use the dashboard, but not create API keys.</p>
      <MailNotice configured={state.mailConfigured} />
      <NewAccountForm action="/dashboard/signup" state={state} />
      <p class="switch">
        Already have an account? <a href="/dashboard/login">Sign in</a>
      </p>
    </>,
  );
}
