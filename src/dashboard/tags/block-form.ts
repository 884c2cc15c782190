import { BLOCK_TYPES, MAX_BLOCKS, type Block, type BlockType } from '../../features/tags/index.js';

/**
 * The editor's blocks as its form sends them: `blocks[N][field]`, one field per input, in the
 * order shown (N renumbered by tags.js after every move; without scripts the server re-renders
 * the form after each). Values stay texts until they become a block, so a refused form shows
 * exactly what was typed.
 */
export interface BlockFields {
  /** The stored block's id (kept on save), or '' for a block added in the editor. */
  id: string;
  type: string;
  content: string;
  level: string;
  style: string;
  bold: boolean;
  italic: boolean;
  file_id: string;
  alt: string;
  url: string;
  label: string;
}

const EMPTY: Omit<BlockFields, 'type'> = {
  id: '',
  content: '',
  level: '2',
  style: 'info',
  bold: false,
  italic: false,
  file_id: '',
  alt: '',
  url: '',
  label: '',
};

export function newBlockFields(type: BlockType): BlockFields {
  return { ...EMPTY, type };
}

/** A stored block as the form shows it. */
export function fieldsOfBlock(block: Block): BlockFields {
  const fields: BlockFields = { ...EMPTY, id: block.id, type: block.type };
  switch (block.type) {
    case 'text':
      return { ...fields, content: block.content, bold: block.format.bold, italic: block.format.italic };
    case 'heading':
      return { ...fields, content: block.content, level: String(block.level) };
    case 'callout':
      return { ...fields, content: block.content, style: block.style };
    case 'html':
      return { ...fields, content: block.content };
    case 'image':
      return { ...fields, file_id: block.file_id, alt: block.alt };
    case 'link':
      return { ...fields, url: block.url, label: block.label };
    case 'divider':
      return fields;
  }
}

const BLOCK_FIELD = /^blocks\[(\d{1,4})\]\[([a-z_]+)\]$/;
const TEXT_FIELDS = ['id', 'type', 'content', 'level', 'style', 'file_id', 'alt', 'url', 'label'] as const;

/**
 * The blocks of a posted form, in index order. Indexes past MAX_BLOCKS + 1 are not read: the
 * service refuses more than MAX_BLOCKS anyway, and a forged form cannot make the server build
 * thousands of objects.
 */
export function blocksOfForm(body: unknown): BlockFields[] {
  const byIndex = new Map<number, BlockFields>();
  for (const [name, value] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    const match = BLOCK_FIELD.exec(name);
    if (!match || typeof value !== 'string') continue;
    const index = Number(match[1]);
    if (index > MAX_BLOCKS) continue;
    let block = byIndex.get(index);
    if (!block) byIndex.set(index, (block = { ...EMPTY, level: '', style: '', type: '' }));
    const key = match[2]!;
    if (key === 'bold' || key === 'italic') block[key] = value === 'yes';
    else if ((TEXT_FIELDS as readonly string[]).includes(key)) block[key as (typeof TEXT_FIELDS)[number]] = value;
  }
  return [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
}

/** An editing step of the form without scripts: add a block, move one, remove one (`op` = `add:text`, `up:3`…). */
export function applyBlockOp(blocks: BlockFields[], op: string): BlockFields[] | undefined {
  const [verb, argument = ''] = op.split(':');
  if (verb === 'add' && BLOCK_TYPES.includes(argument as BlockType)) return [...blocks, newBlockFields(argument as BlockType)];
  const index = Number(argument);
  if (!Number.isInteger(index) || index < 0 || index >= blocks.length) return undefined;
  const next = [...blocks];
  const swap = (other: number) => {
    if (other < 0 || other >= next.length) return next;
    [next[index], next[other]] = [next[other]!, next[index]!];
    return next;
  };
  if (verb === 'up') return swap(index - 1);
  if (verb === 'down') return swap(index + 1);
  if (verb === 'remove') return next.filter((_, i) => i !== index);
  return undefined;
}

/** The block as the tags service reads it (its validation names `content[N].<field>`). */
export function blockInput(fields: BlockFields): Record<string, unknown> {
  const base: Record<string, unknown> = { type: fields.type, ...(fields.id ? { id: fields.id } : {}) };
  switch (fields.type) {
    case 'text':
      return { ...base, content: fields.content, format: { bold: fields.bold, italic: fields.italic } };
    case 'heading':
      return { ...base, content: fields.content, level: fields.level === '' ? undefined : Number(fields.level) };
    case 'callout':
      return { ...base, content: fields.content, style: fields.style };
    case 'html':
      return { ...base, content: fields.content };
    case 'image':
      return { ...base, file_id: fields.file_id, alt: fields.alt };
    case 'link':
      return { ...base, url: fields.url, label: fields.label };
    default:
      return base;
  }
}

const SERVICE_BLOCK_FIELD = /^content\[(\d+)\](?:\.([a-z_]+))?/;

/**
 * Where the form shows a service error about a block: `blocks[N].<field>` under that field, or
 * `blocks[N]` for the block as a whole; undefined when the error is not about one block.
 */
export function blockErrorKey(field: string): string | undefined {
  const match = SERVICE_BLOCK_FIELD.exec(field);
  if (!match) return undefined;
  const name = match[2] === 'format' ? 'content' : match[2];
  return name ? `blocks[${match[1]}].${name}` : `blocks[${match[1]}]`;
}
