import escapeHtml from 'escape-html';
import type { PageFile } from '../files/index.js';
import { isWebLink, sanitizeUserHtml, type Block } from '../tags/index.js';
import { FAVICON_PATH } from './favicon.js';
import { OG_IMAGE_SIZE } from './og-image.js';
import { DEFAULT_THEME, type PageTheme } from './theme.js';

/** Server-rendered, accessible, mobile-friendly HTML of a tag's page. */

export interface PageTag {
  title: string;
  blocks: Block[];
  /** The tag's files: listed for download below the blocks, except those image blocks show. */
  files?: PageFile[];
  /** Its look (pageTheme); the default preset when none is given. */
  theme?: PageTheme;
}

export interface PageAddresses {
  /** Where the page serves one of the tag's files (relative to the page's origin). */
  file(fileId: string): string;
  /**
   * Where a web link block sends its visitor through, the click counted on the way
   * ({PUBLIC_BASE_URL}/t/{short_id}/l/{block_id}); none for a preview, whose links go direct
   * so that nothing an editor clicks is counted.
   */
  link?(blockId: string): string;
  /**
   * Absolute addresses for link previews (Open Graph, Twitter cards): the page's, and its
   * preview image's ({PUBLIC_BASE_URL}/t/{short_id}/og.png); none for a preview.
   */
  share?: { pageUrl: string; imageUrl: string };
}

const CALLOUT_LABEL = { info: 'Note', warning: 'Warning', success: 'Success', error: 'Error' } as const;

function renderText(block: Extract<Block, { type: 'text' }>): string {
  let html = escapeHtml(block.content);
  if (block.format.italic) html = `<em>${html}</em>`;
  if (block.format.bold) html = `<strong>${html}</strong>`;
  return `<p>${html}</p>`;
}

/** Where a link block's button points: through the counted redirect for a web address, else straight to the link. */
function linkHref(block: Extract<Block, { type: 'link' }>, addresses: PageAddresses): string {
  return addresses.link && isWebLink(block.url) ? addresses.link(block.id) : block.url;
}

function renderBlock(block: Block, addresses: PageAddresses): string {
  switch (block.type) {
    case 'text':
      return renderText(block);
    case 'heading': {
      // The page title is the only h1, so block headings start one level below it.
      const level = Math.min(block.level + 1, 6);
      return `<h${level}>${escapeHtml(block.content)}</h${level}>`;
    }
    case 'callout':
      return `<aside class="callout callout-${block.style}" role="note" aria-label="${CALLOUT_LABEL[block.style]}"><p>${escapeHtml(block.content)}</p></aside>`;
    case 'html':
      // Sanitized on write already; sanitizing again on render guards rows written by older rules.
      return `<div class="html-block">${sanitizeUserHtml(block.content)}</div>`;
    case 'image':
      return `<figure><img src="${escapeHtml(addresses.file(block.file_id))}" alt="${escapeHtml(block.alt)}" loading="lazy"></figure>`;
    case 'link':
      // A button: the whole width is the target, as on link-in-bio pages.
      return `<a class="button" href="${escapeHtml(linkHref(block, addresses))}" rel="noopener noreferrer nofollow">${escapeHtml(block.label || block.url)}</a>`;
    case 'divider':
      return '<hr>';
  }
}

/** Where the per-view beacon script goes; the cached page is shared by every view. */
export const BEACON_SLOT = '<!--beacon-->';

export function document(title: string, body: string, head = '', theme: PageTheme = DEFAULT_THEME): string {
  // The theme is a class and, for an owner's accent, a stylesheet of its own: the CSP allows no inline style.
  const accent = theme.stylesheet ? `<link rel="stylesheet" href="${theme.stylesheet}">` : '';
  return (
    `<!doctype html><html lang="en" class="${theme.className}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title><link rel="stylesheet" href="/assets/page.css">${accent}` +
    `<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">${head}</head>` +
    `<body><main>${body}</main></body></html>`
  );
}

/** How long a link preview's description may be: what search results and cards show. */
const DESCRIPTION_LENGTH = 160;

/** Plain text on one line, cut at a word boundary to at most `length` characters. */
function summary(text: string, length: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= length) return flat;
  const cut = flat.slice(0, length - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > length / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

const meta = (attribute: 'name' | 'property', key: string, value: string) => `<meta ${attribute}="${key}" content="${escapeHtml(value)}">`;

/**
 * What a link preview shows (a chat app, a social network, a search result): the title, the
 * first text block as the description, and the page's preview image, drawn from its title and
 * theme (og.png): every page has one, whatever images it shows, so every card looks alike.
 */
function shareTags(tag: PageTag, addresses: PageAddresses): string {
  if (!addresses.share) return '';
  const { pageUrl, imageUrl } = addresses.share;
  const text = tag.blocks.find((block) => block.type === 'text');
  const description = text ? summary(text.content, DESCRIPTION_LENGTH) : '';
  const tags = [
    `<link rel="canonical" href="${escapeHtml(pageUrl)}">`,
    description ? meta('name', 'description', description) : '',
    meta('property', 'og:type', 'website'),
    meta('property', 'og:title', tag.title),
    description ? meta('property', 'og:description', description) : '',
    meta('property', 'og:url', pageUrl),
    meta('property', 'og:image', imageUrl),
    meta('property', 'og:image:type', 'image/png'),
    meta('property', 'og:image:width', String(OG_IMAGE_SIZE.width)),
    meta('property', 'og:image:height', String(OG_IMAGE_SIZE.height)),
    meta('property', 'og:image:alt', tag.title),
    meta('name', 'twitter:card', 'summary_large_image'),
    meta('name', 'twitter:title', tag.title),
    description ? meta('name', 'twitter:description', description) : '',
    meta('name', 'twitter:image', imageUrl),
  ];
  return tags.join('');
}

/** "2.4 MB": one decimal below 10 of a unit, none above. */
function formatSize(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  if (unit === 0) return bytes === 1 ? '1 byte' : `${bytes} bytes`;
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** The badge of a file: its extension, else its media subtype, in capitals. */
function typeLabel(file: PageFile): string {
  const ext = /\.([a-z0-9]{1,5})$/i.exec(file.name)?.[1] ?? file.mime_type.split('/')[1]?.split(/[.+-]/).pop() ?? 'file';
  return ext.toUpperCase().slice(0, 4);
}

/** The files not already shown by an image block, each a download link. */
function renderFiles(tag: PageTag, fileUrl: (fileId: string) => string): string {
  const shown = new Set(tag.blocks.flatMap((block) => (block.type === 'image' ? [block.file_id] : [])));
  const listed = (tag.files ?? []).filter((file) => !shown.has(file.id));
  if (listed.length === 0) return '';
  const items = listed.map(
    (file) =>
      `<li><a class="file" href="${escapeHtml(fileUrl(file.id))}" download>` +
      `<span class="file-type" aria-hidden="true">${escapeHtml(typeLabel(file))}</span>` +
      `<span class="file-name">${escapeHtml(file.name)}</span>` +
      `<span class="file-size">${formatSize(file.size)}<span class="visually-hidden">, download</span></span></a></li>`,
  );
  return `<section class="files" aria-labelledby="files-heading"><h2 id="files-heading">Files</h2><ul>${items.join('')}</ul></section>`;
}

export function renderTagPage(tag: PageTag, addresses: PageAddresses): string {
  const blocks = tag.blocks.map((block) => renderBlock(block, addresses)).join('');
  return document(
    tag.title,
    `<article><h1>${escapeHtml(tag.title)}</h1>${blocks}${renderFiles(tag, addresses.file)}</article>`,
    shareTags(tag, addresses) + BEACON_SLOT,
    tag.theme,
  );
}

/** A rendered page cut where a counted view's beacon script goes, the slot itself left out. */
export function splitAtBeacon(html: string): [string, string] {
  const at = html.indexOf(BEACON_SLOT);
  return [html.slice(0, at), html.slice(at + BEACON_SLOT.length)];
}

/** The page as a visit that is not counted gets it (bots, HEAD, previews): no beacon. */
export function withoutBeacon(html: string): string {
  return splitAtBeacon(html).join('');
}

/** The script that reports a counted view's time on page under `token`. */
export function beaconScript(token: string): string {
  return `<script src="/assets/beacon.js" data-view="${escapeHtml(token)}" defer></script>`;
}

export const UNAVAILABLE_PAGE = document(
  'Temporarily unavailable',
  '<div class="not-found"><h1>Temporarily unavailable</h1><p>This page cannot be shown right now. Please try again in a moment.</p></div>',
);

export const NOT_FOUND_PAGE = document(
  'Page not found',
  '<div class="not-found"><h1>Page not found</h1><p>This tag does not exist, was deleted, or is not shared publicly.</p></div>',
);
