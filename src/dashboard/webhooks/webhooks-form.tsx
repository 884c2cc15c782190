import { EVENT_TYPES } from '../../features/events/index.js';
import { CheckboxGroup, CsrfField, ErrorSummary, Field, fieldId, SubmitOrCancel } from '../components/forms.js';

export interface HeaderRow {
  name: string;
  value: string;
}

export interface WebhookFormValues {
  name: string;
  url: string;
  events: readonly string[];
  headers: readonly HeaderRow[];
  enabled: boolean;
}

export const EMPTY_WEBHOOK_FORM: WebhookFormValues = { name: '', url: '', events: [], headers: [], enabled: true };

/**
 * A form's state: what was typed and what is wrong with it. Errors are keyed by field name;
 * `header-N` is row N of the custom headers and `form` the whole form (the plan's limit).
 */
export interface WebhookForm {
  values: WebhookFormValues;
  errors: Record<string, string>;
}

/** The submit value of a row's Remove button: `remove-header-N`. */
export const REMOVE_HEADER = 'remove-header-';
export const ADD_HEADER = 'add-header';

/** A header row's name or value input: verbatim text, tied to the row's error when it has one. */
function HeaderInput(props: { id?: string; name: string; value: string; label: string; placeholder: string; errorId: string | undefined }) {
  return (
    <input
      id={props.id}
      name={props.name}
      value={props.value}
      aria-label={props.label}
      placeholder={props.placeholder}
      autocomplete="off"
      spellcheck={false}
      autocapitalize="none"
      aria-invalid={props.errorId ? 'true' : undefined}
      aria-describedby={props.errorId}
    />
  );
}

/** One custom header: name and value inputs and a Remove button (webhooks.js removes the row in place). */
function HeaderRowFields({ row, index, error }: { row: HeaderRow; index: number; error?: string }) {
  const id = `header-${index}`;
  return (
    <li class={error ? 'header-row field-invalid' : 'header-row'} data-header-row="">
      <HeaderInput
        // The error summary links to the row's name; only a row with an error needs the id (the template's copies have none).
        id={error ? `${id}-name` : undefined}
        name="header_name"
        value={row.name}
        label="Header name"
        placeholder="Name, e.g. Authorization"
        errorId={error ? `${id}-error` : undefined}
      />
      <HeaderInput
        name="header_value"
        value={row.value}
        label="Header value"
        placeholder="Value"
        errorId={error ? `${id}-error` : undefined}
      />
      <button type="submit" name="intent" value={`${REMOVE_HEADER}${index}`} class="button button-quiet" data-remove-header="">
        Remove
      </button>
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </li>
  );
}

function HeaderRows({ rows, errors }: { rows: readonly HeaderRow[]; errors: Record<string, string> }) {
  return (
    <fieldset
      id={fieldId('headers')}
      class={errors.headers ? 'field field-invalid' : 'field'}
      aria-describedby={errors.headers ? 'field-headers-hint field-headers-error' : 'field-headers-hint'}
    >
      <legend>Custom headers</legend>
      <p class="field-hint" id="field-headers-hint">
        Optional. Sent with every delivery, e.g. a token your receiver checks. The signature headers are set by tagsvc.
      </p>
      <ul class="header-rows" id="header-rows">
        {rows.map((row, index) => (
          <HeaderRowFields key={index} row={row} index={index} error={errors[`header-${index}`]} />
        ))}
      </ul>
      {/* The row webhooks.js adds on Add header; without scripts the server adds one. */}
      <template id="header-row-template">
        <HeaderRowFields row={{ name: '', value: '' }} index={rows.length} />
      </template>
      {errors.headers && (
        <p class="field-error" id="field-headers-error">
          {errors.headers}
        </p>
      )}
      <div>
        <button type="submit" name="intent" value={ADD_HEADER} class="button button-quiet" data-add-header="">
          Add header
        </button>
      </div>
    </fieldset>
  );
}

/** The form's errors as the page shows them, top to bottom: the whole form's first. */
const summaryOrder = (values: WebhookFormValues) => [
  'form',
  'name',
  'url',
  'events',
  ...values.headers.map((_row, index) => `header-${index}`),
  'headers',
];

/** What an error of the summary links to: a header row's name input; nothing for the whole form's. */
function summaryTarget(name: string): string | undefined {
  if (name === 'form') return undefined;
  return name.startsWith('header-') ? `${name}-name` : fieldId(name);
}

/** The webhook form, for a new webhook (`action` /dashboard/webhooks) and for editing one. */
export function WebhookFormFields({
  csrf,
  action,
  form,
  submit,
  cancel,
}: {
  csrf: string;
  action: string;
  form: WebhookForm;
  submit: string;
  cancel: string;
}) {
  const { values, errors } = form;
  return (
    <form method="post" action={action} class="stack form-narrow webhook-form" novalidate>
      <CsrfField token={csrf} />
      {/* Enter in a field submits with the form's first button: this one, not a row's Remove. */}
      <button type="submit" class="visually-hidden" tabindex={-1} aria-hidden="true">
        {submit}
      </button>
      <ErrorSummary errors={errors} order={summaryOrder(values)} idOf={summaryTarget} />
      <Field name="name" label="Name" autocomplete="off" value={values.name} hint="For you, e.g. “Slack notifier”." error={errors.name} />
      <Field
        name="url"
        label="URL"
        autocomplete="off"
        value={values.url}
        hint="The HTTPS address tagsvc posts each event to. It must be reachable from the internet."
        error={errors.url}
      />
      <CheckboxGroup name="events" legend="Events" values={EVENT_TYPES} checked={values.events} error={errors.events} />
      <HeaderRows rows={values.headers} errors={errors} />
      <label class="checkbox checkbox-plain">
        <input type="checkbox" name="enabled" value="on" checked={values.enabled} />
        <span>Enabled: deliver events as they happen</span>
      </label>
      <SubmitOrCancel label={submit} cancel={cancel} />
    </form>
  );
}
