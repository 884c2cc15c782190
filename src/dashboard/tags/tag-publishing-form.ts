import { MAX_VIEWS_CAP, TAG_STATUSES, type TagInput, type TagView } from '../../features/tags/index.js';
import type { ApiError } from '../../errors.js';
import { instantOfWallTime, isTimeZone, wallTimeOf } from '../../lib/zoned-time.js';
import { sentence } from '../screen.js';
import { formatNumber } from '../components/table.js';
import { sentField } from './tag-settings-form.js';
import type { PublishingValues } from './tag-publishing.js';
import { presetAccent, type ThemeValues } from './tag-theme.js';

/** The zone of a form without one (no scripts ran): the one the page says its times are in. */
const UTC = 'UTC';

/**
 * How the tag's page is published and looks, as the edit form sent it. Each field the form did
 * not send (one from before it had them) shows the tag's own value, so saving keeps it. Times
 * are read in the form's time zone (`time_zone`, set by tags.js to the browser's; UTC without).
 */
export function publishingOfForm(body: unknown, tag: TagView): { publishing: PublishingValues; theme: ThemeValues } {
  const sent = (name: string) => sentField(body, name);
  const zone = sent('time_zone') ?? UTC;
  const timeZone = isTimeZone(zone) ? zone : UTC;
  const preset = sent('theme_preset') ?? tag.theme.preset;
  const presetAccentChosen = sent('accent_color') === undefined ? tag.theme.accent_color === null : sent('preset_accent') === 'yes';
  return {
    publishing: {
      ...publishingOfTag(tag, timeZone),
      ...definedOnly({
        status: sent('status'),
        publishAt: sent('publish_at'),
        expiresAt: sent('expires_at'),
        maxViews: sent('max_views')?.trim(),
        expiredUrl: sent('expired_url')?.trim(),
      }),
      removePassword: sent('remove_password') === 'yes',
    },
    theme: {
      preset,
      accent: sent('accent_color') ?? tag.theme.accent_color ?? presetAccent(preset),
      presetAccent: presetAccentChosen,
    },
  };
}

function definedOnly<T extends Record<string, string | undefined>>(values: T): Partial<Record<keyof T, string>> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<Record<keyof T, string>>;
}

/** The tag's publishing as the form shows it, times in `timeZone`. */
export function publishingOfTag(tag: TagView, timeZone = UTC): PublishingValues {
  return {
    status: tag.status,
    publishAt: tag.publish_at ? wallTimeOf(tag.publish_at, timeZone) : '',
    expiresAt: tag.expires_at ? wallTimeOf(tag.expires_at, timeZone) : '',
    timeZone,
    maxViews: tag.max_views === null ? '' : String(tag.max_views),
    expiredUrl: tag.expired_url ?? '',
    passwordProtected: tag.password_protected,
    removePassword: false,
  };
}

export function themeOfTag(tag: TagView): ThemeValues {
  const { preset, accent_color: accent } = tag.theme;
  return { preset, accent: accent ?? presetAccent(preset), presetAccent: accent === null };
}

/**
 * A schedule's time as the service takes it: null for an empty field; the tag's stored instant
 * when the form shows it unchanged (its seconds kept: the input shows minutes); else the wall
 * time read in the form's zone, or undefined when it is not a date and time.
 */
function instantOf(value: string, zone: string, stored: string | null): string | null | undefined {
  if (value === '') return null;
  if (stored !== null && wallTimeOf(stored, zone) === value) return stored;
  return instantOfWallTime(value, zone)?.toISOString();
}

const WHOLE_NUMBER = /^\d{1,10}$/;

/**
 * The publishing fields and theme as the tags service reads them, and the form's own errors:
 * what the service never sees (a time that is not one, a view count that is not a number, a
 * password both set and removed). With any, nothing is saved. The password goes only when one
 * is typed or removed: an empty field keeps the current one.
 */
export function publishingInput(
  { publishing, theme }: { publishing: PublishingValues; theme: ThemeValues },
  password: string,
  tag: TagView,
): { input: TagInput; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  if (!(TAG_STATUSES as readonly string[]).includes(publishing.status)) errors.status = 'Choose Published or Draft.';
  const publishAt = instantOf(publishing.publishAt, publishing.timeZone, tag.publish_at);
  if (publishAt === undefined) errors.publish_at = 'Enter a date and time, or leave it empty.';
  const expiresAt = instantOf(publishing.expiresAt, publishing.timeZone, tag.expires_at);
  if (expiresAt === undefined) errors.expires_at = 'Enter a date and time, or leave it empty.';
  const maxViews = publishing.maxViews === '' ? null : Number(publishing.maxViews);
  if (maxViews !== null && (!WHOLE_NUMBER.test(publishing.maxViews) || maxViews < 1 || maxViews > MAX_VIEWS_CAP)) {
    errors.max_views = `Enter a whole number of views from 1 to ${formatNumber(MAX_VIEWS_CAP)}, or leave it empty.`;
  }
  if (password !== '' && publishing.removePassword) errors.password = 'Type a new password or remove it, not both.';
  const passwordChange = publishing.removePassword ? { password: null } : password !== '' ? { password } : {};
  return {
    errors,
    input: {
      status: publishing.status as TagInput['status'],
      publish_at: publishAt ?? null,
      expires_at: expiresAt ?? null,
      max_views: maxViews,
      expired_url: publishing.expiredUrl || null,
      ...passwordChange,
      theme: { preset: theme.preset as never, accent_color: theme.presetAccent ? null : theme.accent },
    },
  };
}

/** The service's names of the fields, as the form names them and its messages call them. */
const PUBLISHING_FIELDS: Record<string, { field: string; label: string }> = {
  status: { field: 'status', label: 'The status' },
  publish_at: { field: 'publish_at', label: '“Publish at”' },
  expires_at: { field: 'expires_at', label: '“Expires at”' },
  max_views: { field: 'max_views', label: 'The number of views' },
  expired_url: { field: 'expired_url', label: 'The address for expired visits' },
  password: { field: 'password', label: 'The password' },
  'theme.preset': { field: 'theme', label: 'The theme' },
  'theme.accent_color': { field: 'accent_color', label: 'The accent colour' },
};

/** One refusal of the tags service as the message of one of the publishing fields; undefined when it names none. */
export function publishingProblem(problem: ApiError): Record<string, string> | undefined {
  const name = problem.details.field;
  const known = name === undefined ? undefined : PUBLISHING_FIELDS[name];
  if (!known) return undefined;
  // "expires_at must be after publish_at" reads "“Expires at” must be after “Publish at”."
  let message = problem.message;
  for (const [apiName, { label }] of Object.entries(PUBLISHING_FIELDS)) message = message.replaceAll(apiName, label);
  return { [known.field]: sentence(message) };
}
