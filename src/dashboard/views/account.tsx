import { Alert, CsrfField, Field, SubmitButton } from './forms.js';
import { PlanBadge, renderAppPage, type PageContext } from './layout.js';
import type { SignedInUser } from '../../features/sessions/index.js';

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
          <dl class="facts">
            <div>
              <dt>Email</dt>
              <dd>{context.user.email}</dd>
            </div>
            <div>
              <dt>Plan</dt>
              <dd>
                <PlanBadge plan={context.user.plan} />
              </dd>
            </div>
          </dl>
        </section>
        <section class="card" aria-labelledby="password-heading">
          <h2 id="password-heading">Change password</h2>
          <p>Changing your password signs out every other browser signed in to this account.</p>
          {state.changed && <Alert kind="success">Password changed. Your other sessions were signed out.</Alert>}
          {state.error && <Alert kind="error">{state.error}</Alert>}
          <form method="post" action="/dashboard/account/password" class="stack">
            <CsrfField token={context.csrf} />
            <Field
              name="current_password"
              label="Current password"
              type="password"
              autocomplete="current-password"
              error={errors.current_password}
            />
            <Field
              name="new_password"
              label="New password"
              type="password"
              autocomplete="new-password"
              hint="At least 8 characters."
              error={errors.new_password}
            />
            <Field name="confirm" label="Confirm new password" type="password" autocomplete="new-password" error={errors.confirm} />
            <SubmitButton>Change password</SubmitButton>
          </form>
        </section>
      </div>
    </>,
  );
}
