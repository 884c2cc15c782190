import { Alert, CsrfField, ErrorSummary, Field, NewPasswordFields, SelectField, SubmitButton } from '../components/forms.js';
import { AccountFacts, renderAppPage, type PageContext } from '../components/layout.js';
import type { SignedInUser } from '../../features/accounts/index.js';
import { WeeklyReportCard, type WeeklyReportState } from './weekly-report.js';

export interface PasswordFormState {
  error?: string;
  fieldErrors?: Record<string, string>;
  changed?: boolean;
  zone?: TimeZoneFormState;
  weeklyReport?: WeeklyReportState;
}

interface TimeZoneFormState {
  /** The browser's zone, from its tz cookie; unknown without scripts. */
  browser?: string;
  /** The value sent, when the form was refused. */
  value?: string;
  error?: string;
  saved?: boolean;
}

/** Every zone the runtime knows, the names the service accepts; UTC first, which the list leaves out. */
const ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];

/** The zone the reports use: the saved one, else the browser's (the empty choice). */
function TimeZoneCard({ user, csrf, state }: { user: SignedInUser; csrf: string; state: TimeZoneFormState }) {
  const browser = state.browser ? `Browser’s time zone (${state.browser})` : 'Browser’s time zone';
  return (
    <section class="card" aria-labelledby="time-zone-heading">
      <h2 id="time-zone-heading">Time zone</h2>
      <p>Analytics count days and hours in this zone, and show their times in it.</p>
      {state.saved && <Alert kind="success">Time zone saved.</Alert>}
      <ErrorSummary errors={state.error ? { time_zone: state.error } : {}} intro="Your time zone was not changed." order={['time_zone']} />
      <form method="post" action="/dashboard/account/time-zone" class="stack">
        <CsrfField token={csrf} />
        <SelectField
          name="time_zone"
          label="Time zone"
          value={state.value ?? user.timeZone ?? ''}
          error={state.error}
          hint="The browser’s time zone follows the computer you use; UTC when the browser does not say."
          options={[{ value: '', label: browser }, ...ZONES.map((zone) => ({ value: zone, label: zone.replaceAll('_', ' ') }))]}
        />
        <SubmitButton>Save time zone</SubmitButton>
      </form>
    </section>
  );
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
        <TimeZoneCard user={context.user} csrf={context.csrf} state={state.zone ?? {}} />
        {state.weeklyReport && <WeeklyReportCard csrf={context.csrf} state={state.weeklyReport} />}
        <section class="card" aria-labelledby="two-factor-heading">
          <h2 id="two-factor-heading">Two-factor sign-in</h2>
          <p>An authenticator app or a passkey keeps your account safe even if someone learns your password.</p>
          <p>
            <a class="button button-secondary" href="/dashboard/account/two-factor">
              Manage two-factor sign-in
            </a>
          </p>
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
