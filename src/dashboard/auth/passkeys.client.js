/**
 * Passkeys (WebAuthn) for the forms PasskeyForm renders (auth/passkey-form.tsx): data-passkey is
 * `register` or `sign-in`, data-passkey-options the address that answers the ceremony's
 * options as JSON. On submit: the options (the form's fields, its token among them, go with the
 * request), then the browser's own passkey dialog (@simplewebauthn/browser, served as
 * simplewebauthn.js before this file), then the form is sent with the passkey's answer in
 * `response`. The forms are hidden until this script finds WebAuthn in the browser.
 */
(() => {
  const webauthn = window.SimpleWebAuthnBrowser;
  if (!webauthn || !webauthn.browserSupportsWebAuthn()) return;
  const forms = document.querySelectorAll('form[data-passkey]');
  for (const form of forms) form.hidden = false;

  /** What the person reads when the passkey was not used: cancelled, timed out, or refused. */
  const problem = (error) =>
    error && error.name === 'NotAllowedError'
      ? 'The passkey was not used: the request was cancelled or timed out.'
      : `The passkey was not used: ${(error && error.message) || 'something went wrong'}.`;

  for (const form of forms) {
    const status = form.querySelector('[data-passkey-status]');
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      status.textContent = '';
      const button = form.querySelector('button[type="submit"]');
      button.disabled = true;
      try {
        const answer = await fetch(form.dataset.passkeyOptions, {
          method: 'POST',
          body: new URLSearchParams(new FormData(form)),
          credentials: 'same-origin',
        });
        const optionsJSON = await answer.json();
        if (!answer.ok) throw new Error(optionsJSON.error || `the server answered ${answer.status}`);
        const response =
          form.dataset.passkey === 'register'
            ? await webauthn.startRegistration({ optionsJSON })
            : await webauthn.startAuthentication({ optionsJSON });
        form.elements.namedItem('response').value = JSON.stringify(response);
        form.submit();
      } catch (error) {
        status.textContent = problem(error);
        button.disabled = false;
      }
    });
  }
})();
