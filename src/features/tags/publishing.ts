import type { TagsTable } from '../../db/schema.js';
import { checkFields, validationError, whenGiven } from '../../errors.js';
import { PAGE_PASSWORD_LENGTH, THEME_PRESETS } from './choices.js';

/** How a tag's page is published: the input fields, as the API takes them. */
export interface PublishingInput {
  status?: TagsTable['status'];
  publish_at?: string | null;
  expires_at?: string | null;
  max_views?: number | null;
  expired_url?: string | null;
  password?: string | null;
  theme?: { preset?: TagsTable['theme_preset']; accent_color?: string | null };
}

export type PublishingFields = Partial<
  Pick<TagsTable, 'status' | 'publish_at' | 'expires_at' | 'max_views' | 'expired_url' | 'password_hash' | 'theme_preset' | 'theme_accent'>
>;

// RFC 3339: a date, a time and an offset (Z or ±hh:mm); what Date.parse also reads, it must not be looser.
const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const ACCENT = /^#[0-9a-fA-F]{6}$/;
const MAX_URL = 2048;

/** An RFC 3339 time as the ISO string in UTC every stored time is; null stays null. */
export function rfc3339Instant(value: string | null, field: string): string | null {
  if (value === null) return null;
  const time = RFC_3339.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(time))
    throw validationError(field, `${field} must be an RFC 3339 date and time with an offset, e.g. 2026-12-01T09:00:00Z`);
  return new Date(time).toISOString();
}

function httpsUrl(value: string | null, field: string): string | null {
  if (value === null) return null;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:' || value.length > MAX_URL) {
    throw validationError(field, `${field} must be an https URL of at most ${MAX_URL} characters`);
  }
  return url.href;
}

/** A page's password (a tag's, a shared report's): 4 to 128 characters; null (none) passes. */
export function checkPasswordLength(value: string | null, field: string): void {
  if (value === null) return;
  const length = [...value].length;
  if (length < PAGE_PASSWORD_LENGTH.min || length > PAGE_PASSWORD_LENGTH.max) {
    throw validationError(field, `${field} must be ${PAGE_PASSWORD_LENGTH.min} to ${PAGE_PASSWORD_LENGTH.max} characters`);
  }
}

function checkSchedule(publishAt: string | null, expiresAt: string | null, input: PublishingInput, prefix: string): void {
  if (publishAt && expiresAt && expiresAt <= publishAt) {
    const field = input.expires_at !== undefined ? `${prefix}expires_at` : `${prefix}publish_at`;
    throw validationError(field, `${prefix}expires_at must be after ${prefix}publish_at`);
  }
}

function checkTheme(theme: NonNullable<PublishingInput['theme']>, prefix: string): PublishingFields {
  const { preset, accent_color: accent } = theme;
  if (preset !== undefined && !THEME_PRESETS.includes(preset)) {
    throw validationError(`${prefix}theme.preset`, `${prefix}theme.preset must be one of: ${THEME_PRESETS.join(', ')}`);
  }
  if (accent !== undefined && accent !== null && !ACCENT.test(accent)) {
    throw validationError(`${prefix}theme.accent_color`, `${prefix}theme.accent_color must be a colour written #rrggbb`);
  }
  return {
    ...(preset !== undefined ? { theme_preset: preset } : {}),
    ...(accent !== undefined ? { theme_accent: accent?.toLowerCase() ?? null } : {}),
  };
}

/**
 * Checks how the page is published, every field (checkFields), against the tag as it is
 * (`existing`, on update): an expiry must come after the publication it ends. The password is
 * only checked here; the caller hashes it once the whole input holds. `prefix` names batch
 * items: `tags[2].`.
 */
export async function checkPublishing(input: PublishingInput, prefix: string, existing?: TagsTable): Promise<PublishingFields> {
  const checked = await checkFields({
    status: () => input.status,
    publish_at: whenGiven(input.publish_at, (value) => rfc3339Instant(value, `${prefix}publish_at`)),
    expires_at: whenGiven(input.expires_at, (value) => rfc3339Instant(value, `${prefix}expires_at`)),
    max_views: () => input.max_views,
    expired_url: whenGiven(input.expired_url, (value) => httpsUrl(value, `${prefix}expired_url`)),
    theme: whenGiven(input.theme, (theme) => checkTheme(theme, prefix)),
    password: whenGiven(input.password, (value) => checkPasswordLength(value, `${prefix}password`)),
  });
  const { theme, password: _password, ...fields } = checked;
  const publishAt = fields.publish_at !== undefined ? fields.publish_at : (existing?.publish_at ?? null);
  const expiresAt = fields.expires_at !== undefined ? fields.expires_at : (existing?.expires_at ?? null);
  checkSchedule(publishAt, expiresAt, input, prefix);
  const resolved: PublishingFields = { ...theme };
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) Object.assign(resolved, { [name]: value });
  return resolved;
}
