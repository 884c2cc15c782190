import { validationError } from '../errors.js';

// C0 and C1 controls, and the bidirectional overrides that can disguise text
// ("evil\u202Efdp.exe" displays as "evilexe.pdf").
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
// The same, for replace(), which resets a global pattern's position itself.
const EVERY_CONTROL = new RegExp(CONTROL.source, 'g');

/** Whether a one-line text (a name, a title) holds control characters or bidirectional overrides. */
export function hasControlCharacters(text: string): boolean {
  return CONTROL.test(text);
}

/** The text without them (a name received from elsewhere, made usable). */
export function withoutControlCharacters(text: string): string {
  return text.replace(EVERY_CONTROL, '');
}

/**
 * Characters as a person counts them (code points): JavaScript's length counts UTF-16 units,
 * two for an emoji, which halved the limits of texts written in them.
 */
function characterCount(text: string): number {
  return text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
}

/** Whether the text is longer than `max` characters (cheap when it is not even `max` units long). */
export function longerThan(text: string, max: number): boolean {
  return text.length > max && characterCount(text) > max;
}

/**
 * A one-line label given by the caller (a tag's title, a folder's or a webhook's name): trimmed,
 * 1 to `max` characters, no control characters. A NUL in a title reached the public page as a
 * raw byte, and PostgreSQL refuses it in a text column outright.
 */
export function cleanLabel(text: string, field: string, max = 255): string {
  const trimmed = text.trim();
  if (trimmed.length < 1) throw validationError(field, `${field} must not be empty`);
  if (longerThan(trimmed, max)) throw validationError(field, `${field} must be at most ${max} characters`);
  if (hasControlCharacters(trimmed)) throw validationError(field, `${field} must not contain control characters`);
  return trimmed;
}

/**
 * The first string in a parsed body or query that holds a NUL character, as a field path
 * (`content[2].content`, `headers.x-a`), or undefined when there is none. No text field takes
 * NUL: PostgreSQL refuses it in a text column, so it must be refused before any query, and a
 * property name holding one is reported as its object (`headers`; `''` for the body itself).
 */
export function fieldWithNul(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = fieldWithNul(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return path;
    const found = fieldWithNul(item, path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}
