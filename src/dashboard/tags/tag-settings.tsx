import type { FolderView } from '../../features/folders/index.js';
import { CheckboxField, Field, SelectField, type Option } from '../components/forms.js';

/** A tag's settings as the form holds them: texts as typed, so a refused form shows them again. */
export interface TagSettingsValues {
  title: string;
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

/** The choices the form offers: the permission values this user may give a tag, the user's folders. */
export interface TagSettingsChoices {
  readPermissions: readonly string[];
  writePermissions: readonly string[];
  folders: readonly FolderView[];
}

export function folderOptions(folders: readonly FolderView[]): Option[] {
  return [{ value: '', label: 'No folder' }, ...folders.map((folder) => ({ value: folder.id, label: folder.name }))];
}

/** The fields of TagSettingsFields that can have an error, in the page's order (the error summary's). */
export const TAG_SETTINGS_ORDER = ['title', 'read', 'write', 'folder'];

/** Title, who may view and change the tag, its folder and access logging: the new-tag and edit forms share them. */
export function TagSettingsFields({
  values,
  errors,
  choices,
}: {
  values: TagSettingsValues;
  errors: Record<string, string>;
  choices: TagSettingsChoices;
}) {
  return (
    <>
      <Field name="title" label="Title" autocomplete="off" value={values.title} hint="Shown as the page’s heading." error={errors.title} />
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
