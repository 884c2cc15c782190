import { unknownField, validationError } from '../../errors.js';
import { longerThan } from '../../lib/text-fields.js';
import { newId } from '../../lib/ids.js';
import { sanitizeUserHtml } from './sanitize.js';

/** Content blocks (DECISIONS.md, "Tags"): the stored and returned shapes. */
export const BLOCK_TYPES = ['text', 'heading', 'callout', 'html', 'image', 'link', 'divider'] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];
export const CALLOUT_STYLES = ['info', 'warning', 'success', 'error'] as const;

export type Block =
  | { id: string; type: 'text'; content: string; format: { bold: boolean; italic: boolean } }
  | { id: string; type: 'heading'; content: string; level: number }
  | { id: string; type: 'callout'; content: string; style: (typeof CALLOUT_STYLES)[number] }
  | { id: string; type: 'html'; content: string }
  | { id: string; type: 'image'; file_id: string; alt: string }
  | { id: string; type: 'link'; url: string; label: string }
  | { id: string; type: 'divider' };

export const MAX_BLOCKS = 500;
export const MAX_BLOCK_CONTENT = 20_000;

const FIELDS: Record<BlockType, readonly string[]> = {
  text: ['content', 'format'],
  heading: ['content', 'level'],
  callout: ['content', 'style'],
  html: ['content'],
  image: ['file_id', 'alt'],
  link: ['url', 'label'],
  divider: [],
};

type Input = Record<string, unknown>;

/** Reads one block's fields with errors that name the exact field, e.g. content[3].level. */
class BlockReader {
  constructor(
    private readonly input: Input,
    readonly path: string,
  ) {}

  text(name: string, options: { required: boolean; max: number }): string {
    const value = this.input[name];
    if (value === undefined && !options.required) return '';
    if (typeof value !== 'string') throw validationError(`${this.path}.${name}`, `${this.path}.${name} must be a string`);
    if (longerThan(value, options.max)) {
      throw validationError(`${this.path}.${name}`, `${this.path}.${name} must be at most ${options.max} characters`);
    }
    return value;
  }

  flag(parent: Input, name: string): boolean {
    const value = parent[name];
    if (value === undefined) return false;
    if (typeof value !== 'boolean')
      throw validationError(`${this.path}.format.${name}`, `${this.path}.format.${name} must be true or false`);
    return value;
  }

  object(name: string): Input {
    const value = this.input[name];
    if (value === undefined) return {};
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw validationError(`${this.path}.${name}`, `${this.path}.${name} must be an object`);
    }
    return value as Input;
  }

  fail(name: string, message: string): never {
    throw validationError(`${this.path}.${name}`, `${this.path}.${name} ${message}`);
  }

  get(name: string): unknown {
    return this.input[name];
  }
}

/** Web addresses: a page sends its visitors to them through a counted redirect (public/links.ts). */
const WEB_SCHEMES: ReadonlySet<string> = new Set(['http:', 'https:']);
/** Phone, mail and text-message links: the visitor's device opens them, so they are linked directly. */
const APP_SCHEMES: ReadonlySet<string> = new Set(['tel:', 'mailto:', 'sms:']);
const LINK_RULE = 'must be an http, https, tel, mailto or sms URL';

function protocolOf(value: string): string | undefined {
  try {
    return new URL(value).protocol;
  } catch {
    return undefined;
  }
}

/** Whether a link block's stored URL is a web address, whose clicks the public page counts. */
export function isWebLink(url: string): boolean {
  return WEB_SCHEMES.has(protocolOf(url) ?? '');
}

/** A link block's URL: a web address, or a tel:, mailto: or sms: link with something after its scheme. */
function isLinkUrl(value: string): boolean {
  const protocol = protocolOf(value);
  if (protocol === undefined) return false;
  if (WEB_SCHEMES.has(protocol)) return true;
  return APP_SCHEMES.has(protocol) && value.trim().length > protocol.length;
}

function readBlock(r: BlockReader, type: BlockType, id: string): Block {
  const content = () => r.text('content', { required: true, max: MAX_BLOCK_CONTENT });
  switch (type) {
    case 'text': {
      const format = r.object('format');
      for (const key of Object.keys(format)) {
        if (key !== 'bold' && key !== 'italic') throw unknownField(`${r.path}.format.${key}`);
      }
      return { id, type, content: content(), format: { bold: r.flag(format, 'bold'), italic: r.flag(format, 'italic') } };
    }
    case 'heading': {
      const level = r.get('level');
      if (!Number.isInteger(level) || (level as number) < 1 || (level as number) > 6) r.fail('level', 'must be an integer from 1 to 6');
      return { id, type, content: content(), level: level as number };
    }
    case 'callout': {
      const style = r.get('style') ?? 'info';
      if (!CALLOUT_STYLES.includes(style as never)) r.fail('style', `must be one of: ${CALLOUT_STYLES.join(', ')}`);
      return { id, type, content: content(), style: style as (typeof CALLOUT_STYLES)[number] };
    }
    case 'html':
      return { id, type, content: sanitizeUserHtml(content()) };
    case 'image': {
      const fileId = r.text('file_id', { required: true, max: 64 });
      if (!/^file_[0-9a-z]{26}$/.test(fileId)) r.fail('file_id', 'must be the id of a file of this tag');
      return { id, type, file_id: fileId, alt: r.text('alt', { required: false, max: 1000 }) };
    }
    case 'link': {
      const url = r.text('url', { required: true, max: 2048 });
      if (!isLinkUrl(url)) r.fail('url', LINK_RULE);
      return { id, type, url, label: r.text('label', { required: false, max: 1000 }) };
    }
    case 'divider':
      return { id, type };
  }
}

/**
 * Validates and normalizes a block list. A block that carries the id of one of `existingIds`
 * keeps it (PUT), the first one to carry it only: ids stay unique within the tag, so a block
 * sent twice (copied in a client) becomes two blocks. Every other block gets a fresh id.
 */
export function parseBlocks(input: unknown[], path: string, existingIds: ReadonlySet<string> = new Set()): Block[] {
  if (input.length > MAX_BLOCKS) throw validationError(path, `${path} may hold at most ${MAX_BLOCKS} blocks`);
  const kept = new Set<string>();
  return input.map((raw, index) => {
    const blockPath = `${path}[${index}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw validationError(blockPath, `${blockPath} must be an object`);
    const block = raw as Input;
    const type = block.type;
    if (typeof type !== 'string' || !BLOCK_TYPES.includes(type as BlockType)) {
      throw validationError(`${blockPath}.type`, `${blockPath}.type must be one of: ${BLOCK_TYPES.join(', ')}`);
    }
    for (const key of Object.keys(block)) {
      if (key !== 'id' && key !== 'type' && !FIELDS[type as BlockType].includes(key)) {
        throw validationError(`${blockPath}.${key}`, `${blockPath}.${key} is not a field of a ${type} block`);
      }
    }
    const keep = typeof block.id === 'string' && existingIds.has(block.id) && !kept.has(block.id);
    const id = keep ? (block.id as string) : newId('blk');
    kept.add(id);
    return readBlock(new BlockReader(block, blockPath), type as BlockType, id);
  });
}

/** The alternative creation shape: an HTML string becomes one sanitized html block. */
export function blocksFromHtml(html: string, path: string): Block[] {
  if (longerThan(html, MAX_BLOCK_CONTENT)) throw validationError(path, `${path} must be at most ${MAX_BLOCK_CONTENT} characters`);
  return [{ id: newId('blk'), type: 'html', content: sanitizeUserHtml(html) }];
}
