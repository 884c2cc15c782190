import type { ComponentChildren } from 'preact';

/** The field name of the form token; htmx sends the same token as the x-csrf-token header. */
export const CSRF_FIELD = '_csrf';

export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name={CSRF_FIELD} value={token} />;
}

/** A field's control id (the one its error summary links to), unless a page holds several fields of one name. */
export const fieldId = (name: string): string => `field-${name}`;

export interface FieldProps {
  name: string;
  /** The control's id; `field-<name>` unless a page holds several fields of one name. */
  id?: string;
  label: string;
  type?: 'date' | 'datetime-local' | 'email' | 'password' | 'text' | 'url' | 'number' | 'color';
  autocomplete: string;
  /** Bounds of a number field. */
  min?: number;
  max?: number;
  value?: string;
  hint?: string;
  /** The message shown under the field; marks it invalid for assistive technology. */
  error?: string;
  autofocus?: boolean;
  /** Whether the browser refuses to send the form without it (default: yes). */
  required?: boolean;
  /** The keyboard a phone shows: digits only for a one-time code. */
  inputmode?: 'numeric';
  /** A datetime-local's value as the instant it names (data-instant), for the page's script to show in another zone. */
  instant?: string;
}

/** The ids a control's hint and error get, and its aria-describedby. */
export function describedBy(id: string, hint: string | undefined, error: string | undefined): string | undefined {
  return [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
}

/** A control's hint and error, under it. */
export function FieldMessages({ id, hint, error }: { id: string; hint?: string; error?: string }) {
  return (
    <>
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
    </>
  );
}

/** One labelled input with its hint and error, linked by aria-describedby. */
export function Field({
  name,
  id = fieldId(name),
  label,
  type = 'text',
  autocomplete,
  value,
  hint,
  error,
  autofocus,
  required = true,
  min,
  max,
  inputmode,
  instant,
}: FieldProps) {
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        // The input's attribute types differ per type; all of them take the same attributes here.
        type={type as 'text'}
        min={min}
        max={max}
        autocomplete={autocomplete}
        inputMode={inputmode}
        value={value}
        data-instant={instant}
        required={required}
        autofocus={autofocus}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy(id, hint, error)}
        spellcheck={type === 'email' ? false : undefined}
        autocapitalize={type === 'email' ? 'none' : undefined}
      />
      <FieldMessages id={id} hint={hint} error={error} />
    </div>
  );
}

/** An optional multi-line text field. */
export function TextAreaField({
  name,
  id = fieldId(name),
  label,
  value,
  hint,
  error,
  rows = 3,
}: {
  name: string;
  id?: string;
  label: string;
  value?: string;
  hint?: string;
  error?: string;
  rows?: number;
}) {
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      <textarea
        id={id}
        name={name}
        rows={rows}
        spellcheck={false}
        autocapitalize="none"
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy(id, hint, error)}
      >
        {value}
      </textarea>
      <FieldMessages id={id} hint={hint} error={error} />
    </div>
  );
}

export interface Option {
  value: string;
  label: string;
}

/** A labelled choice of one option. `hideLabel` keeps the label for assistive technology only (table rows). */
export function SelectField({
  name,
  id = fieldId(name),
  label,
  options,
  value,
  hint,
  error,
  hideLabel,
}: {
  name: string;
  id?: string;
  label: string;
  options: readonly Option[];
  value?: string;
  hint?: string;
  error?: string;
  hideLabel?: boolean;
}) {
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={id} class={hideLabel ? 'visually-hidden' : undefined}>
        {label}
      </label>
      <select id={id} name={name} aria-invalid={error ? 'true' : undefined} aria-describedby={describedBy(id, hint, error)}>
        {options.map((option) => (
          <option key={option.value} value={option.value} selected={option.value === value}>
            {option.label}
          </option>
        ))}
      </select>
      <FieldMessages id={id} hint={hint} error={error} />
    </div>
  );
}

/** A group of checkboxes sharing one name, under a legend; each is labelled with its value. */
export function CheckboxGroup({
  name,
  legend,
  values,
  checked,
  error,
}: {
  name: string;
  legend: string;
  values: readonly string[];
  checked: readonly string[];
  error?: string;
}) {
  const id = fieldId(name);
  return (
    <fieldset
      id={id}
      class={error ? 'field checkboxes field-invalid' : 'field checkboxes'}
      aria-describedby={describedBy(id, undefined, error)}
    >
      <legend>{legend}</legend>
      <div class="checkbox-grid">
        {values.map((value) => (
          <label key={value} class="checkbox">
            <input type="checkbox" name={name} value={value} checked={checked.includes(value)} />
            <span>{value}</span>
          </label>
        ))}
      </div>
      <FieldMessages id={id} error={error} />
    </fieldset>
  );
}

/** One labelled checkbox (a yes/no setting) with an optional hint; checked sends `value`. */
export function CheckboxField({
  name,
  id = fieldId(name),
  label,
  checked,
  hint,
  value = 'yes',
}: {
  name: string;
  id?: string;
  label: string;
  checked: boolean;
  hint?: string;
  value?: string;
}) {
  return (
    <div class="field field-checkbox">
      <label class="checkbox checkbox-plain" for={id}>
        <input type="checkbox" id={id} name={name} value={value} checked={checked} aria-describedby={describedBy(id, hint, undefined)} />
        <span>{label}</span>
      </label>
      <FieldMessages id={id} hint={hint} />
    </div>
  );
}

/** A message above a page's content: an error (announced), a success (a status) or information to read before acting (a note). */
export function Alert({ kind, children }: { kind: 'error' | 'success' | 'info'; children: ComponentChildren }) {
  const role = ({ error: 'alert', success: 'status', info: 'note' } as const)[kind];
  return (
    <div class={`alert alert-${kind}`} role={role}>
      {children}
    </div>
  );
}

/**
 * Every problem of a sent form, above it, announced when the page loads (role=alert): `intro`
 * (what did not happen), then each message as a link to its field, which shows the same message
 * under it. `order` lists the form's fields as the page does, so the summary reads top to bottom;
 * `idOf` gives a field's control id where it is not `field-<name>` (undefined: a problem of the
 * whole form, not linked).
 */
export function ErrorSummary({
  errors,
  intro = 'Nothing was saved.',
  order = [],
  idOf = fieldId,
}: {
  errors: Readonly<Record<string, string>>;
  intro?: string;
  order?: readonly string[];
  idOf?: (name: string) => string | undefined;
}) {
  const position = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  const problems = Object.entries(errors).sort(([a], [b]) => position(a) - position(b));
  if (problems.length === 0) return null;
  return (
    <div class="alert alert-error error-summary" role="alert">
      <p class="error-summary-title">
        {intro} {problems.length === 1 ? 'Fix this problem:' : `Fix these ${problems.length} problems:`}
      </p>
      <ul>
        {problems.map(([name, message]) => {
          const id = idOf(name);
          return <li key={name}>{id ? <a href={`#${id}`}>{message}</a> : message}</li>;
        })}
      </ul>
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

/** A form's submit button and a Cancel link back to where the person came from. */
export function SubmitOrCancel({ label = 'Save', cancel }: { label?: string; cancel: string }) {
  return (
    <div class="actions">
      <SubmitButton>{label}</SubmitButton>
      <a class="button button-secondary" href={cancel}>
        Cancel
      </a>
    </div>
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

/**
 * Copies the text of the element with id `target`, or its `data-copy-text` (dashboard.js);
 * hidden until that script runs. `what` names what it copies, for screen readers, where a page
 * has several ("Copy the address of Menu"); the visible word is Copy, then Copied.
 */
export function CopyButton({ target, what }: { target: string; what?: string }) {
  return (
    <button type="button" class="button button-quiet copy" data-copy={target} hidden>
      <span data-copy-label="">Copy</span>
      {what && <span class="visually-hidden">{` ${what}`}</span>}
    </button>
  );
}

/**
 * A button that changes something hard to undo, in its own form. dashboard.js asks the person
 * first (the browser's confirm, with `question`) and then sends `confirmed=yes`; without
 * scripts the screen answers with a confirmation page instead (components/ask-first.ts).
 */
export function ConfirmButton({
  csrf,
  action,
  question,
  label,
  danger,
}: {
  csrf: string;
  action: string;
  question: string;
  label: string;
  danger?: boolean;
}) {
  return (
    <form method="post" action={action} class="inline-form" data-confirm={question}>
      <CsrfField token={csrf} />
      <input type="hidden" name="confirmed" value="" />
      <button type="submit" class={danger ? 'button button-quiet button-danger' : 'button button-quiet'}>
        {label}
      </button>
    </form>
  );
}

/** A one-button form (no confirmation): Enable, Disable. */
export function ActionButton({ csrf, action, label }: { csrf: string; action: string; label: string }) {
  return (
    <form method="post" action={action} class="inline-form">
      <CsrfField token={csrf} />
      <button type="submit" class="button button-quiet">
        {label}
      </button>
    </form>
  );
}
