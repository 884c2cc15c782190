import type { ComponentChildren } from 'preact';

/** The field name of the form token; htmx sends the same token as the x-csrf-token header. */
export const CSRF_FIELD = '_csrf';

export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name={CSRF_FIELD} value={token} />;
}

export interface FieldProps {
  name: string;
  label: string;
  type?: 'email' | 'password' | 'text';
  autocomplete: string;
  value?: string;
  hint?: string;
  /** The message shown under the field; marks it invalid for assistive technology. */
  error?: string;
  autofocus?: boolean;
}

/** One labelled input with its hint and error, linked by aria-describedby. */
export function Field({ name, label, type = 'text', autocomplete, value, hint, error, autofocus }: FieldProps) {
  const id = `field-${name}`;
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        // The input's attribute types differ per type; all three take the same attributes here.
        type={type as 'text'}
        autocomplete={autocomplete}
        value={value}
        required
        autofocus={autofocus}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described}
        spellcheck={type === 'email' ? false : undefined}
        autocapitalize={type === 'email' ? 'none' : undefined}
      />
      {hint && (
        <p class="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A message for the whole form; role=alert so screen readers announce it when the page loads. */
export function Alert({ kind, children }: { kind: 'error' | 'success'; children: ComponentChildren }) {
  return (
    <div class={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

export function SubmitButton({ children }: { children: ComponentChildren }) {
  return (
    <button type="submit" class="button button-primary">
      {children}
    </button>
  );
}

/** A new password and its confirmation (the confirmation field is always named `confirm`). */
export function NewPasswordFields({ name, label, errors }: { name: string; label: string; errors: Record<string, string> }) {
  return (
    <>
      <Field name={name} label={label} type="password" autocomplete="new-password" hint="At least 8 characters." error={errors[name]} />
      <Field name="confirm" label={`Confirm ${label.toLowerCase()}`} type="password" autocomplete="new-password" error={errors.confirm} />
    </>
  );
}

/** Copies the text of the element with id `target` (dashboard.js); hidden until that script runs. */
export function CopyButton({ target }: { target: string }) {
  return (
    <button type="button" class="button button-quiet copy" data-copy={target} hidden>
      Copy
    </button>
  );
}
