import { renderToString } from 'preact-render-to-string';
import type { FolderView } from '../../features/folders/index.js';
import type { AddressCheck } from '../../features/tags/index.js';
import { CheckboxField, describedBy, Field, fieldId, FieldMessages, SelectField, type Option } from '../components/forms.js';

/** A tag's settings as the form holds them: texts as typed, so a refused form shows them again. */
export interface TagSettingsValues {
  title: string;
  /** The chosen address (short_id); '' on a new tag: one is made up. */
  shortId: string;
  /** permissions.read */
  read: string;
  /** permissions.write */
  write: string;
  /** A folder id, or '' for none. */
  folder: string;
  accessLogging: boolean;
}

/** What the permission values mean, in the words of the form and the tables. */
export const READ_LABELS: Record<string, string> = {
  public: 'Public',
  organization: 'Organization',
  private: 'Private',
};

/** What each visibility means, for the form's hint. */
const READ_MEANINGS: Record<string, string> = {
  public: 'Public: anyone with the link.',
  organization: 'Organization: its signed-in members.',
  private: 'Private: only you, signed in.',
};

export const WRITE_LABELS: Record<string, string> = {
  owner: 'Only the owner',
  organization: 'Members of the organization',
};

/**
 * The choices the form offers: the permission values this user may give a tag, the user's
 * folders, and where the workspace's pages live (`tagsvc.example/t/`, before the address).
 */
export interface TagSettingsChoices {
  readPermissions: readonly string[];
  writePermissions: readonly string[];
  folders: readonly FolderView[];
  addressPrefix: string;
}

export function folderOptions(folders: readonly FolderView[]): Option[] {
  return [{ value: '', label: 'No folder' }, ...folders.map((folder) => ({ value: folder.id, label: folder.name }))];
}

/** The fields of TagSettingsFields that can have an error, in the page's order (the error summary's). */
export const TAG_SETTINGS_ORDER = ['title', 'short_id', 'read', 'write', 'folder'];

/** Where the address field asks whether an address can be chosen (tag-address.routes.ts). */
export const ADDRESS_CHECK_PATH = '/dashboard/tags/address';

/**
 * The page's address after the workspace's prefix, checked as it is typed: 300 ms after the last
 * key, htmx asks ADDRESS_CHECK_PATH (for the tag `tagId`, whose own addresses it may take
 * back) and puts the answer under the field, which screen readers announce when they can.
 */
function AddressField({ value, error, prefix, tagId }: { value: string; error?: string; prefix: string; tagId?: string }) {
  const id = fieldId('short_id');
  const hint = tagId
    ? 'Letters, digits, - and _, 3 to 64 of them. The old address keeps working: it redirects to the new one.'
    : 'Letters, digits, - and _, 3 to 64 of them. Leave it empty for 8 random characters.';
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={id}>{tagId ? 'Address' : 'Address (optional)'}</label>
      <div class="input-prefixed">
        <span class="input-prefix" id={`${id}-prefix`}>
          {prefix}
        </span>
        <input
          id={id}
          name="short_id"
          type="text"
          value={value}
          autocomplete="off"
          spellcheck={false}
          autocapitalize="none"
          required={tagId !== undefined}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={[`${id}-prefix`, `${id}-check`, describedBy(id, hint, error)].filter(Boolean).join(' ')}
          hx-get={tagId ? `${ADDRESS_CHECK_PATH}?${new URLSearchParams({ tag: tagId }).toString()}` : ADDRESS_CHECK_PATH}
          hx-trigger="input changed delay:300ms"
          hx-target={`#${id}-check`}
          hx-sync="this:replace"
        />
      </div>
      <p class="address-check" id={`${id}-check`} aria-live="polite"></p>
      <FieldMessages id={id} hint={hint} error={error} />
    </div>
  );
}

/**
 * Title, address, who may view and change the tag, its folder and access logging: the new-tag
 * and edit forms share them (`tagId`: the tag the edit form edits).
 */
export function TagSettingsFields({
  values,
  errors,
  choices,
  tagId,
}: {
  values: TagSettingsValues;
  errors: Record<string, string>;
  choices: TagSettingsChoices;
  tagId?: string;
}) {
  return (
    <>
      <Field name="title" label="Title" autocomplete="off" value={values.title} hint="Shown as the page’s heading." error={errors.title} />
      <AddressField value={values.shortId} error={errors.short_id} prefix={choices.addressPrefix} tagId={tagId} />
      <div class="field-row">
        <SelectField
          name="read"
          label="Visibility"
          value={values.read}
          options={choices.readPermissions.map((value) => ({ value, label: READ_LABELS[value] ?? value }))}
          hint={choices.readPermissions.map((value) => READ_MEANINGS[value]).join(' ')}
          error={errors.read}
        />
        <SelectField
          name="write"
          label="Who can edit"
          value={values.write}
          options={choices.writePermissions.map((value) => ({ value, label: WRITE_LABELS[value] ?? value }))}
          hint="Who may change its content and settings."
          error={errors.write}
        />
      </div>
      <SelectField name="folder" label="Folder" value={values.folder} options={folderOptions(choices.folders)} error={errors.folder} />
      <CheckboxField
        name="access_logging"
        label="Keep an access log"
        checked={values.accessLogging}
        hint="Records each view’s details, downloadable from Analytics."
      />
    </>
  );
}

/** What the address check says under the field (an answer of ADDRESS_CHECK_PATH); `current`: the tag's address now. */
type AddressChecked = AddressCheck['result'] | 'current';

const ADDRESS_CHECKED: Record<AddressChecked, string> = {
  current: 'The page’s address now.',
  available: 'Available',
  taken: 'Taken: another page has or had this address.',
  malformed: 'Not allowed: use 3 to 64 letters, digits, - or _.',
  reserved: 'Not allowed: the service keeps this word for its own addresses.',
};

export function renderAddressCheck(result: AddressChecked): string {
  const kind = result === 'available' || result === 'current' ? 'address-available' : 'address-refused';
  return renderToString(<span class={`address-status ${kind}`}>{ADDRESS_CHECKED[result]}</span>);
}
