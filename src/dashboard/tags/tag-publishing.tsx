import { MAX_VIEWS_CAP, PAGE_PASSWORD_LENGTH } from '../../features/tags/index.js';
import { instantOfWallTime } from '../../lib/zoned-time.js';
import { CheckboxField, describedBy, Field, fieldId, FieldMessages } from '../components/forms.js';
import { formatNumber } from '../components/table.js';

/**
 * How a tag's page is published, as the edit form holds it: texts as typed, times as wall-clock
 * times in `timeZone` (the browser's, which tags.js puts in the form; UTC without scripts).
 */
export interface PublishingValues {
  status: string;
  /** YYYY-MM-DDTHH:mm in timeZone, or '' for none. */
  publishAt: string;
  expiresAt: string;
  timeZone: string;
  maxViews: string;
  expiredUrl: string;
  /** Whether the tag has a password now (never the password itself). */
  passwordProtected: boolean;
  removePassword: boolean;
}

/** The fields of PublishingFields that can have an error, in the page's order. */
export const PUBLISHING_ORDER = ['status', 'publish_at', 'expires_at', 'max_views', 'expired_url', 'password'];

const STATUSES = [
  { value: 'published', label: 'Published', hint: 'Visitors see it, within its schedule.' },
  { value: 'draft', label: 'Draft', hint: 'Hidden: visitors get “Page not found”. Preview still shows it.' },
];

/** Published or draft, as two radio buttons with what each means. */
function StatusChoice({ value, error }: { value: string; error?: string }) {
  const id = fieldId('status');
  return (
    <fieldset
      id={id}
      class={error ? 'field choice-group field-invalid' : 'field choice-group'}
      aria-describedby={describedBy(id, undefined, error)}
    >
      <legend>Status</legend>
      <div class="choices">
        {STATUSES.map((status) => (
          <label key={status.value} class="choice">
            <input type="radio" name="status" value={status.value} checked={value === status.value} />
            <span class="choice-text">
              <span class="choice-label">{status.label}</span>
              <span class="choice-hint">{status.hint}</span>
            </span>
          </label>
        ))}
      </div>
      <FieldMessages id={id} error={error} />
    </fieldset>
  );
}

/**
 * A time of the schedule: a datetime-local input showing `value` in the form's time zone. It
 * carries the instant it names (data-instant), from which tags.js shows it in the browser's zone.
 */
function TimeField({
  name,
  label,
  value,
  zone,
  hint,
  error,
}: {
  name: string;
  label: string;
  value: string;
  zone: string;
  hint: string;
  error?: string;
}) {
  const instant = value ? instantOfWallTime(value, zone)?.toISOString() : undefined;
  return (
    <Field
      name={name}
      label={label}
      type="datetime-local"
      autocomplete="off"
      value={value}
      required={false}
      instant={instant}
      hint={hint}
      error={error}
    />
  );
}

/** Status, schedule, view cap and where an expired page sends its visitors: the edit form's Publishing card. */
export function PublishingFields({ values, errors }: { values: PublishingValues; errors: Record<string, string> }) {
  return (
    <>
      <StatusChoice value={values.status} error={errors.status} />
      <div class="field-row">
        <TimeField
          name="publish_at"
          label="Publish at"
          value={values.publishAt}
          zone={values.timeZone}
          hint="Empty: at once."
          error={errors.publish_at}
        />
        <TimeField
          name="expires_at"
          label="Expires at"
          value={values.expiresAt}
          zone={values.timeZone}
          hint="Empty: never."
          error={errors.expires_at}
        />
      </div>
      <p class="field-hint time-zone">
        <input type="hidden" name="time_zone" value={values.timeZone} data-time-zone="" />
        {'Times are in '}
        <span data-time-zone-label="">{values.timeZone === 'UTC' ? 'UTC' : values.timeZone}</span>.
      </p>
      <div class="field-row">
        <Field
          name="max_views"
          label="Expire after (views)"
          type="number"
          min={1}
          max={MAX_VIEWS_CAP}
          autocomplete="off"
          value={values.maxViews}
          required={false}
          hint="Empty: no limit. Every view of the page counts; previews do not."
          error={errors.max_views}
        />
        <Field
          name="expired_url"
          label="When expired, send visitors to"
          type="url"
          autocomplete="off"
          value={values.expiredUrl}
          required={false}
          hint="An https:// address. Empty: they get “No longer available”."
          error={errors.expired_url}
        />
      </div>
    </>
  );
}

/** Set, change or remove the page's password; the current one is never shown, only whether there is one. */
export function PasswordFields({ values, errors }: { values: PublishingValues; errors: Record<string, string> }) {
  const length = `${PAGE_PASSWORD_LENGTH.min} to ${formatNumber(PAGE_PASSWORD_LENGTH.max)} characters`;
  return (
    <>
      <p class={values.passwordProtected ? 'password-state password-on' : 'password-state'}>
        {values.passwordProtected
          ? 'Password protected: visitors enter the password to see the page.'
          : 'No password: everyone who may view the page sees it.'}
      </p>
      <Field
        name="password"
        label={values.passwordProtected ? 'New password' : 'Password'}
        type="password"
        autocomplete="new-password"
        required={false}
        hint={values.passwordProtected ? `${length}. Empty: the password stays as it is.` : `${length}. Empty: no password.`}
        error={errors.password}
      />
      {values.passwordProtected && (
        <CheckboxField
          name="remove_password"
          label="Remove the password"
          checked={values.removePassword}
          hint="The page opens to everyone who may view it."
        />
      )}
    </>
  );
}
