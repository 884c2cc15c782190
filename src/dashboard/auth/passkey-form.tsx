import type { ComponentChildren } from 'preact';
import { CsrfField } from '../components/forms.js';

/** The scripts a page with a PasskeyForm names (assets.ts): the WebAuthn browser library, then ours. */
export const PASSKEY_SCRIPTS = ['simplewebauthn.js', 'passkeys.js'];

/**
 * A form that a passkey answers (passkeys.client.js): on submit the script asks `options` for
 * the ceremony's options, lets the browser create (`register`) or use (`sign-in`) a passkey,
 * puts its answer in `response` and sends the form to `action`. Passkeys need scripts: the
 * form stays hidden until the script finds WebAuthn in the browser.
 */
export function PasskeyForm({
  csrf,
  ceremony,
  action,
  options,
  children,
}: {
  csrf: string;
  ceremony: 'register' | 'sign-in';
  action: string;
  options: string;
  children: ComponentChildren;
}) {
  return (
    <form method="post" action={action} class="stack passkey-form" data-passkey={ceremony} data-passkey-options={options} hidden>
      <CsrfField token={csrf} />
      <input type="hidden" name="response" value="" />
      {children}
      <p class="field-error" data-passkey-status="" role="alert"></p>
    </form>
  );
}
