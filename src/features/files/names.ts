import { validationError } from '../../errors.js';
import { hasControlCharacters, longerThan, withoutControlCharacters } from '../../lib/text-fields.js';
import { extensionOf, extensionsFor, ruleForMime } from './file-types.js';

/** File names (DECISIONS.md "Files"): 1-255 characters, no path separators, no control characters. */
export const MAX_NAME = 255;
export const MAX_DESCRIPTION = 2000;

/** Why `name` is not a valid file name, or undefined when it is. */
export function nameProblem(name: string): string | undefined {
  if (name.length < 1) return 'must not be empty';
  if (longerThan(name, MAX_NAME)) return `must be at most ${MAX_NAME} characters`;
  if (/[/\\]/.test(name)) return 'must not contain / or \\';
  if (hasControlCharacters(name)) return 'must not contain control characters';
  if (name.trim() === '' || name === '.' || name === '..') return 'must name a file';
  if (name !== name.trim()) return 'must not start or end with spaces';
  return undefined;
}

export function requireValidName(name: string, field: string): string {
  const problem = nameProblem(name);
  if (problem) throw validationError(field, `${field} ${problem}`);
  return name;
}

export function requireValidDescription(description: string, field = 'description'): string {
  if (longerThan(description, MAX_DESCRIPTION)) throw validationError(field, `${field} must be at most ${MAX_DESCRIPTION} characters`);
  // Line breaks and tabs are fine in a description; other controls are not.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(description)) {
    throw validationError(field, `${field} must not contain control characters`);
  }
  return description;
}

/**
 * A name received from elsewhere (a Content-Disposition header, a URL path), made into a valid
 * one: the last path segment, controls dropped, trimmed, shortened keeping the extension.
 */
export function cleanExternalName(raw: string): string {
  let name = raw.split(/[/\\]/).pop() ?? '';
  name = withoutControlCharacters(name).trim();
  if (name === '.' || name === '..') name = '';
  if (name.length > MAX_NAME) {
    const ext = extensionOf(name);
    const keep = ext ? `.${ext}` : '';
    name = name.slice(0, MAX_NAME - keep.length).trimEnd() + keep;
  }
  return name;
}

/** The file name in a Content-Disposition header: filename* (RFC 5987) first, then filename. */
export function filenameFromContentDisposition(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (extended) {
    const charset = extended[1]!.trim().toLowerCase();
    try {
      const value = extended[2]!.trim();
      const decoded =
        charset === 'utf-8'
          ? decodeURIComponent(value)
          : value.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      if (decoded) return decoded;
    } catch {
      // Malformed escapes: fall back to the plain parameter.
    }
  }
  const quoted = /(?:^|;)\s*filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
  if (quoted) return quoted[1]!.replace(/\\(.)/g, '$1');
  const token = /(?:^|;)\s*filename\s*=\s*([^;\s]+)/i.exec(header);
  return token ? token[1] : undefined;
}

/** The last segment of a URL's path, decoded. */
export function filenameFromUrl(url: URL): string {
  const segment = url.pathname.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The name a download is saved under: the file's name, with its type's extension added when
 * the name does not already end in one (so a text file named `run.sh` downloads as
 * `run.sh.txt`, never as something a desktop would execute). `mime` is the type served.
 */
export function downloadName(name: string, storedMime: string, servedMime = storedMime): string {
  const ext = extensionOf(name);
  let base = name;
  if (servedMime !== storedMime && extensionsFor(storedMime).includes(ext)) base = name.slice(0, -(ext.length + 1));
  const served = servedExtensions(servedMime);
  if (served.length === 0) return base;
  return served.includes(extensionOf(base)) ? base : `${base}.${served[0]}`;
}

/** Types served but not taken as uploads: image transforms' outputs. */
const SERVED_ONLY: Record<string, string> = { 'image/avif': 'avif' };

/** The extensions a download of this type may end in, the usual one first. */
function servedExtensions(mime: string): string[] {
  if (ruleForMime(mime)) return extensionsFor(mime);
  const ext = SERVED_ONLY[mime];
  return ext ? [ext] : [];
}

/** RFC 6266 Content-Disposition with an ASCII fallback and the exact name in RFC 5987 form. */
export function contentDisposition(type: 'attachment' | 'inline', filename: string): string {
  const fallback = filename
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/gu, '_')
    .replace(/["\\]/g, '_');
  if (fallback === filename) return `${type}; filename="${filename}"`;
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
