import { fileTypeFromFile } from 'file-type';
import { ApiError } from '../../errors.js';
import { findExecutableInZip } from './zip-inspect.js';

/**
 * The type rules (spec "Limits", DECISIONS.md "Files"): a file is accepted when its extension
 * is on the allowed list AND its content is what that extension says. The stored mime_type is
 * the type decided here, never the client's claim.
 */

type Check =
  /** file-type must detect one of these (magic bytes). */
  | { kind: 'magic'; detected: readonly string[] }
  /** A zip archive (PK header, readable central directory); its entries are inspected. */
  | { kind: 'zip' }
  /** UTF-8 text without NUL bytes whose beginning passes `head`. */
  | { kind: 'text'; head?: (text: string) => boolean };

export interface TypeRule {
  /** The canonical extension, used when a name needs one. */
  ext: string;
  mime: string;
  check: Check;
  /** Office Open XML and zip archives: executables inside are refused. */
  inspectZip?: boolean;
  /** Raster or SVG: transforms and thumbnails apply. */
  image?: boolean;
}

const ooxml = (ext: string, mime: string): TypeRule => ({ ext, mime, check: { kind: 'magic', detected: [ext] }, inspectZip: true });
// Legacy Office files are OLE2 compound files; the magic bytes say so, not which application.
const cfb = (ext: string, mime: string): TypeRule => ({ ext, mime, check: { kind: 'magic', detected: ['cfb'] } });

/** XML prolog items that may precede the root element. */
const PROLOG = /^(?:\s+|<\?xml[^>]*\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>)*/i;

const RULES: Record<string, TypeRule> = {
  pdf: { ext: 'pdf', mime: 'application/pdf', check: { kind: 'magic', detected: ['pdf'] } },
  doc: cfb('doc', 'application/msword'),
  xls: cfb('xls', 'application/vnd.ms-excel'),
  ppt: cfb('ppt', 'application/vnd.ms-powerpoint'),
  docx: ooxml('docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'),
  xlsx: ooxml('xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'),
  pptx: ooxml('pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'),
  txt: { ext: 'txt', mime: 'text/plain', check: { kind: 'text' } },
  rtf: { ext: 'rtf', mime: 'application/rtf', check: { kind: 'text', head: (text) => text.startsWith('{\\rtf') } },
  jpg: { ext: 'jpg', mime: 'image/jpeg', check: { kind: 'magic', detected: ['jpg'] }, image: true },
  png: { ext: 'png', mime: 'image/png', check: { kind: 'magic', detected: ['png', 'apng'] }, image: true },
  gif: { ext: 'gif', mime: 'image/gif', check: { kind: 'magic', detected: ['gif'] }, image: true },
  webp: { ext: 'webp', mime: 'image/webp', check: { kind: 'magic', detected: ['webp'] }, image: true },
  svg: {
    ext: 'svg',
    mime: 'image/svg+xml',
    check: { kind: 'text', head: (text) => /^<svg[\s>/]/i.test(text.replace(PROLOG, '')) },
    image: true,
  },
  zip: { ext: 'zip', mime: 'application/zip', check: { kind: 'zip' }, inspectZip: true },
  rar: { ext: 'rar', mime: 'application/vnd.rar', check: { kind: 'magic', detected: ['rar'] } },
  csv: { ext: 'csv', mime: 'text/csv', check: { kind: 'text' } },
  json: { ext: 'json', mime: 'application/json', check: { kind: 'text', head: (text) => /^\s*(?:[{["\-0-9]|true|false|null)/.test(text) } },
  xml: { ext: 'xml', mime: 'application/xml', check: { kind: 'text', head: (text) => /^</.test(text.replace(PROLOG, '')) } },
};

/** Extensions that name the same type as another. */
const ALIASES: Record<string, string> = { jpeg: 'jpg' };

export const ALLOWED_EXTENSIONS = [...Object.keys(RULES), ...Object.keys(ALIASES)].sort();
export const BLOCKED_EXTENSIONS = ['exe', 'app', 'sh', 'js', 'py', 'rb'] as const;
/** Refused inside archives too (scripts are allowed there). */
export const EXECUTABLE_EXTENSIONS = ['exe', 'app', 'sh'] as const;

export const IMAGE_MIME_TYPES = Object.values(RULES)
  .filter((rule) => rule.image)
  .map((rule) => rule.mime);

/**
 * Raster images are shown where a page places them. SVG is not among them: it can carry script,
 * so it is sent as an attachment like every other type (an <img> ignores Content-Disposition).
 */
const SHOWN_INLINE = new Set(IMAGE_MIME_TYPES.filter((mime) => mime !== 'image/svg+xml'));

export function isShownInline(mime: string): boolean {
  return SHOWN_INLINE.has(mime);
}

const unsupported = (message: string) => new ApiError('unsupported_file_type', message);

/** The extension of a file name, lower case, without the dot; '' when there is none. */
export function extensionOf(name: string): string {
  const match = /\.([A-Za-z0-9]{1,16})$/.exec(name);
  return match ? match[1]!.toLowerCase() : '';
}

/** The rule for a file name, or 415 for blocked, unknown or missing extensions. Needs no content. */
export function ruleForName(name: string): TypeRule {
  const ext = extensionOf(name);
  if ((BLOCKED_EXTENSIONS as readonly string[]).includes(ext)) {
    throw unsupported(`Executables and scripts (${BLOCKED_EXTENSIONS.map((e) => `.${e}`).join(', ')}) cannot be uploaded`);
  }
  const rule = RULES[ALIASES[ext] ?? ext];
  if (!rule) {
    const allowed = ALLOWED_EXTENSIONS.map((e) => `.${e}`).join(', ');
    throw unsupported(
      ext ? `Files of type .${ext} are not accepted; allowed: ${allowed}` : `The file name has no extension; allowed: ${allowed}`,
    );
  }
  return rule;
}

export function ruleForMime(mime: string): TypeRule | undefined {
  return Object.values(RULES).find((rule) => rule.mime === mime);
}

/** The extensions a name may end in for a type: `jpg` and `jpeg` for image/jpeg. */
export function extensionsFor(mime: string): string[] {
  const rule = ruleForMime(mime);
  if (!rule) return [];
  return [
    rule.ext,
    ...Object.entries(ALIASES)
      .filter(([, target]) => target === rule.ext)
      .map(([alias]) => alias),
  ];
}

/** What was learned while the bytes streamed past (ingest.ts). */
export interface ContentFacts {
  /** Valid UTF-8 from start to end, with no NUL byte. */
  utf8Text: boolean;
  /** The beginning of the content decoded as UTF-8 (BOM removed), for text checks. */
  head: string;
  /** The first bytes of the content. */
  magic: Buffer;
}

const ZIP_STARTS = [Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from([0x50, 0x4b, 0x05, 0x06])];

/**
 * 415 unless the content at `path` is what `rule` says. Reads the file (magic bytes, zip
 * directory), never into memory whole.
 */
export async function verifyContent(rule: TypeRule, path: string, facts: ContentFacts): Promise<void> {
  const mismatch = () => unsupported(`The content of this file is not a valid .${rule.ext} file`);
  switch (rule.check.kind) {
    case 'text':
      if (!facts.utf8Text) throw unsupported(`A .${rule.ext} file must be UTF-8 text`);
      if (rule.check.head && !rule.check.head(facts.head)) throw mismatch();
      break;
    case 'magic': {
      const detected = await fileTypeFromFile(path).catch(() => undefined);
      if (!detected || !rule.check.detected.includes(detected.ext)) throw mismatch();
      break;
    }
    case 'zip':
      // A local file header or an empty archive's end record at byte 0: anything in front of
      // the archive (a self-extracting executable) makes it something else. Office documents
      // and other zip containers are zip archives too.
      if (!ZIP_STARTS.some((magic) => facts.magic.subarray(0, 4).equals(magic))) throw mismatch();
      break;
  }
  if (rule.inspectZip) {
    const found = await findExecutableInZip(path).catch(() => {
      throw mismatch();
    });
    if (found)
      throw unsupported(
        `The archive contains an executable (${found}); executables (.exe, .app, .sh) are not accepted, even inside archives`,
      );
  }
}
