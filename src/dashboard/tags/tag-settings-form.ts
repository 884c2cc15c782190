import type { Actor } from '../../features/accounts/index.js';
import { listFolders } from '../../features/folders/index.js';
import { baseUrlFor, READ_PERMISSIONS, WRITE_PERMISSIONS, type TagInput, type TagView } from '../../features/tags/index.js';
import type { ApiError } from '../../errors.js';
import { fieldErrors, field, sentence, type ScreenContext } from '../screen.js';
import type { TagSettingsChoices, TagSettingsValues } from './tag-settings.js';

/** Folders the forms offer: enough for any real account, and a bounded query for any other. */
const MAX_FOLDERS_LISTED = 1000;

/**
 * What the tag forms offer this actor: `organization` permissions only when acting for an
 * organization (the service refuses them otherwise, so offering them would only fail).
 */
export async function tagSettingsChoices(context: ScreenContext, actor: Actor): Promise<TagSettingsChoices> {
  const { folders } = await listFolders(context, actor, { limit: MAX_FOLDERS_LISTED, offset: 0 });
  const allowed = (value: string) => value !== 'organization' || actor.organizationId !== null;
  return {
    readPermissions: READ_PERMISSIONS.filter(allowed),
    writePermissions: WRITE_PERMISSIONS.filter(allowed),
    folders,
    // Shown before the address field: the host people read in the address, without the scheme.
    addressPrefix: `${baseUrlFor(context.config, actor.environment).replace(/^https?:\/\//, '')}/t/`,
  };
}

/** A form field as sent, or undefined when the form did not send it. */
export function sentField(body: unknown, name: string): string | undefined {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** The settings a form sent; the edit form's address keeps the tag's (`current`) when the form had none. */
export function tagSettingsOfForm(body: unknown, current?: TagView): TagSettingsValues {
  return {
    title: field(body, 'title'),
    shortId: (sentField(body, 'short_id') ?? current?.short_id ?? '').trim(),
    read: field(body, 'read'),
    write: field(body, 'write'),
    folder: field(body, 'folder'),
    accessLogging: field(body, 'access_logging') === 'yes',
  };
}

/**
 * The settings as the tags service reads them, and the form's own errors: a choice that is not
 * one the form offered (only a forged or stale form sends one). With any, nothing is saved.
 */
export function tagInputOfSettings(
  values: TagSettingsValues,
  choices: TagSettingsChoices,
  current?: TagView,
): { input: TagInput & { folder_id: string | null }; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  if (current && values.shortId === '') errors.short_id = 'Enter the page’s address.';
  if (!choices.readPermissions.includes(values.read)) errors.read = 'Choose who may open the page.';
  if (!choices.writePermissions.includes(values.write)) errors.write = 'Choose who may edit the tag.';
  // An address is sent only when it changes: a new tag without one gets a random one.
  const shortId = values.shortId && values.shortId !== current?.short_id ? { short_id: values.shortId } : {};
  return {
    errors,
    input: {
      ...shortId,
      title: values.title,
      permissions: { read: values.read as never, write: values.write as never },
      folder_id: values.folder || null,
      access_logging: values.accessLogging,
    },
  };
}

/** The service's field names, as the forms name them. */
const FORM_FIELDS: Record<string, string> = {
  title: 'title',
  folder_id: 'folder',
  'permissions.read': 'read',
  readPermission: 'read',
  'permissions.write': 'write',
  writePermission: 'write',
};

/** The service's refusal of an address, in the form's words. */
function addressProblem(problem: ApiError): string {
  if (problem.code === 'short_id_taken') return 'That address is taken: another page has or had it (addresses are never reused).';
  return sentence(problem.message.replace(/^short_id\b/, 'The address'));
}

/** One refusal of the tags service as the form's message for one of its settings; undefined when it names none. */
export function settingsProblem(problem: ApiError): Record<string, string> | undefined {
  if (problem.details.field === 'short_id') return { short_id: addressProblem(problem) };
  const errors = fieldErrors(problem, FORM_FIELDS);
  // The service names the folder by its id, which the form's select never shows.
  return errors?.folder ? { folder: 'Choose one of your folders.' } : errors;
}
