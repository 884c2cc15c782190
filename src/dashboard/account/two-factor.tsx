import { Alert, ConfirmButton, CopyButton, CsrfField, ErrorSummary, Field, SubmitButton } from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import { DataTable, When } from '../components/table.js';
import { PASSKEY_SCRIPTS, PasskeyForm } from '../auth/passkey-form.js';
import { CodeField } from '../auth/sign-in.js';
import type { SignedInUser, TotpEnrolment, TwoFactorStatus } from '../../features/accounts/index.js';

/** The two-factor page (/dashboard/account/two-factor): the authenticator app, passkeys and recovery codes. */

type View = PageContext & { user: SignedInUser };

export interface TwoFactorPageState {
  notice?: string;
  error?: string;
  fieldErrors?: Record<string, string>;
  /** What the add-a-passkey form was sent with, when it was refused. */
  passkeyName?: string;
}

const PAGE = '/dashboard/account/two-factor';

function RequiredNotice({ status, user }: { status: TwoFactorStatus; user: SignedInUser }) {
  if (user.mustEnrol) {
    return (
      <Alert kind="info">
        This instance requires two-factor sign-in. Set up an authenticator app or add a passkey to continue to the dashboard. An invitation
        you opened waits for you on the Organizations page.
      </Alert>
    );
  }
  return status.required ? (
    <p class="field-hint">This instance requires two-factor sign-in: your last second factor cannot be removed.</p>
  ) : null;
}

function TotpCard({ csrf, status, errors }: { csrf: string; status: TwoFactorStatus; errors: Record<string, string> }) {
  return (
    <section class="card" aria-labelledby="totp-heading">
      <h2 id="totp-heading">Authenticator app</h2>
      {status.totp ? (
        <>
          <p>
            <strong>On.</strong> Signing in asks for a code from your authenticator app after your password.
          </p>
          <form method="post" action={`${PAGE}/totp/disable`} class="stack">
            <CsrfField token={csrf} />
            <Field
              name="code_or_password"
              label="Current code or password"
              type="password"
              autocomplete="off"
              hint="To turn the app off, prove it is you: a code from the app, or your password."
              error={errors.code_or_password}
            />
            <button type="submit" class="button button-secondary">
              Turn off authenticator app
            </button>
          </form>
        </>
      ) : (
        <>
          <p>
            Use an app such as 1Password, Google Authenticator or Aegis: after your password, sign-in asks for the 6-digit code it shows.
          </p>
          <form method="post" action={`${PAGE}/totp`} class="stack">
            <CsrfField token={csrf} />
            <SubmitButton>Set up authenticator app</SubmitButton>
          </form>
        </>
      )}
    </section>
  );
}

function PasskeysCard({
  csrf,
  status,
  errors,
  name,
}: {
  csrf: string;
  status: TwoFactorStatus;
  errors: Record<string, string>;
  name?: string;
}) {
  return (
    <section class="card" aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">Passkeys</h2>
      <p>
        A passkey lives on your phone, computer or security key, unlocked by its fingerprint, face or PIN. Use it after your password, or
        alone with “Sign in with a passkey”.
      </p>
      {status.passkeys.length > 0 ? (
        <DataTable label="Your passkeys" headings={['Name', 'Added', 'Last used', 'Actions']}>
          {status.passkeys.map((passkey) => (
            <tr key={passkey.id}>
              <th scope="row" data-label="Name">
                {passkey.name}
              </th>
              <td data-label="Added">
                <When at={passkey.created_at} />
              </td>
              <td data-label="Last used">
                <When at={passkey.last_used_at} />
              </td>
              <td data-label="Actions" class="cell-actions">
                <div class="row-actions">
                  <ConfirmButton
                    csrf={csrf}
                    action={`${PAGE}/passkeys/${encodeURIComponent(passkey.id)}/remove`}
                    question={`Remove the passkey “${passkey.name}”? It will no longer sign you in.`}
                    label={`Remove ${passkey.name}`}
                    danger
                  />
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : (
        <p class="muted">No passkeys yet.</p>
      )}
      <PasskeyForm csrf={csrf} ceremony="register" action={`${PAGE}/passkeys`} options={`${PAGE}/passkeys/options`}>
        <Field
          name="name"
          label="Passkey name"
          autocomplete="off"
          value={name}
          hint="Where it lives, such as “Work laptop” or “Phone”."
          error={errors.name ?? errors.passkey}
        />
        <SubmitButton>Add a passkey</SubmitButton>
      </PasskeyForm>
      <noscript>
        <p class="field-hint">Adding a passkey needs JavaScript in this browser.</p>
      </noscript>
    </section>
  );
}

function RecoveryCard({ csrf, status }: { csrf: string; status: TwoFactorStatus }) {
  const hasFactor = status.totp || status.passkeys.length > 0;
  return (
    <section class="card" aria-labelledby="recovery-heading">
      <h2 id="recovery-heading">Recovery codes</h2>
      <p>
        If you lose your app or passkeys, a recovery code signs you in once in their place.{' '}
        {hasFactor ? `${status.recoveryCodesLeft} of 10 unused.` : 'They come with your first authenticator app or passkey.'}
      </p>
      {hasFactor && (
        <ConfirmButton
          csrf={csrf}
          action={`${PAGE}/recovery-codes`}
          question="Make ten new recovery codes? The old ones stop working."
          label="Make new recovery codes"
        />
      )}
    </section>
  );
}

export function renderTwoFactor(context: View, status: TwoFactorStatus, state: TwoFactorPageState = {}): string {
  const errors = state.fieldErrors ?? {};
  return renderAppPage(
    context,
    'Two-factor sign-in',
    <>
      <p class="breadcrumb">
        <a href="/dashboard/account">Account</a>
      </p>
      <h1>Two-factor sign-in</h1>
      <RequiredNotice status={status} user={context.user} />
      {state.notice && <Alert kind="success">{state.notice}</Alert>}
      {state.error && <Alert kind="error">{state.error}</Alert>}
      <ErrorSummary errors={errors} intro="Nothing was changed." order={['code_or_password', 'name', 'passkey']} />
      <div class="stack-cards two-factor">
        <TotpCard csrf={context.csrf} status={status} errors={errors} />
        <PasskeysCard csrf={context.csrf} status={status} errors={errors} name={state.passkeyName} />
        <RecoveryCard csrf={context.csrf} status={status} />
      </div>
    </>,
    { scripts: PASSKEY_SCRIPTS },
  );
}

/** Setting up the app: the QR code and the secret as text, then the first code to confirm. */
export function renderTotpEnrolment(context: View, enrolment: TotpEnrolment, error?: string): string {
  return renderAppPage(
    context,
    'Set up authenticator app',
    <>
      <p class="breadcrumb">
        <a href={PAGE}>Two-factor sign-in</a>
      </p>
      <h1>Set up authenticator app</h1>
      <div class="grid">
        <section class="card" aria-labelledby="scan-heading">
          <h2 id="scan-heading">1. Scan the QR code</h2>
          <p>Open your authenticator app, add an account, and scan this code.</p>
          {/* qrcode's SVG: paths with fill and stroke attributes only, nothing the CSP governs. */}
          <div
            class="totp-qr"
            role="img"
            aria-label="QR code of the authenticator secret"
            dangerouslySetInnerHTML={{ __html: enrolment.qrSvg }}
          />
          <p>Cannot scan? Enter this key in the app instead:</p>
          <div class="code">
            <pre id="totp-secret" tabindex={0}>
              <code>{enrolment.secret.replace(/(.{4})/g, '$1 ').trim()}</code>
            </pre>
            <CopyButton target="totp-secret" what="the key" />
          </div>
        </section>
        <section class="card" aria-labelledby="confirm-heading">
          <h2 id="confirm-heading">2. Enter the code it shows</h2>
          <ErrorSummary errors={error ? { code: error } : {}} intro="The authenticator app was not set up." order={['code']} />
          <form method="post" action={`${PAGE}/totp/confirm`} class="stack">
            <CsrfField token={context.csrf} />
            <CodeField hint="6 digits. A new one appears every 30 seconds." error={error} />
            <SubmitButton>Turn on</SubmitButton>
          </form>
        </section>
      </div>
    </>,
  );
}

/** What made the recovery codes: the first second factor, or the person asking for new ones. */
const CODES_HEADING = { totp: 'Authenticator app turned on', passkey: 'Passkey added', renewed: 'New recovery codes' } as const;

/** Ten recovery codes, shown this once (data-once: a reload shows the plain page). */
export function renderRecoveryCodes(context: View, codes: readonly string[], made: keyof typeof CODES_HEADING): string {
  return renderAppPage(
    context,
    'Recovery codes',
    <>
      <h1>{CODES_HEADING[made]}</h1>
      <section class="card card-once" aria-labelledby="codes-heading" data-once="">
        <h2 id="codes-heading">Save your recovery codes</h2>
        <p>
          Each code signs you in once if you lose your authenticator app or passkeys. Keep them somewhere safe, such as a password manager:
          this is the only time they are shown.
        </p>
        <div class="code">
          <pre id="recovery-codes" tabindex={0}>
            <code>{codes.join('\n')}</code>
          </pre>
          <CopyButton target="recovery-codes" what="the recovery codes" />
        </div>
        <p>
          <a class="button button-primary" href={PAGE}>
            I have saved them
          </a>
        </p>
      </section>
    </>,
  );
}
