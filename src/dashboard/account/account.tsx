import { Alert, CsrfField, ErrorSummary, Field, NewPasswordFields, SubmitButton } from '../components/forms.js';
import { AccountFacts, renderAppPage, type PageContext } from '../components/layout.js';
import type { SignedInUser } from '../../features/accounts/index.js';

export interface PasswordFormState {
  error?: string;
  fieldErrors?: Record<string, string>;
  changed?: boolean;
}

export function renderAccount(context: PageContext & { user: SignedInUser }, state: PasswordFormState = {}): string {
  const errors = state.fieldErrors ?? {};
  return renderAppPage(
    context,
    'Account',
    <>
      <h1>Account</h1>
      <div class="grid">
        <section class="card" aria-labelledby="profile-heading">
          <h2 id="profile-heading">Profile</h2>
          <AccountFacts user={context.user} />
        </section>
        <section class="card" aria-labelledby="password-heading">
          <h2 id="password-heading">Change password</h2>
          <p>Changing your password signs out every other browser signed in to this account.</p>
          {state.changed && <Alert kind="success">Password changed. Your other sessions were signed out.</Alert>}
          {state.error && <Alert kind="error">{state.error}</Alert>}
          <ErrorSummary errors={errors} intro="Your password was not changed." order={['current_password', 'new_password', 'confirm']} />
          <form method="post" action="/dashboard/account/password" class="stack">
            <CsrfField token={context.csrf} />
            <Field
              name="current_password"
              label="Current password"
              type="password"
              autocomplete="current-password"
              error={errors.current_password}
            />
            <NewPasswordFields name="new_password" label="New password" errors={errors} />
            <SubmitButton>Change password</SubmitButton>
          </form>
        </section>
      </div>
    </>,
  );
}
