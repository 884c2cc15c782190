import escapeHtml from 'escape-html';
import { sanitizeUserHtml, type Block } from '../tags/index.js';

/** Server-rendered, accessible, mobile-friendly HTML of a tag's page. */

export interface PageTag {
  title: string;
  blocks: Block[];
}

const CALLOUT_LABEL = { info: 'Note', warning: 'Warning', success: 'Success', error: 'Error' } as const;

function renderText(block: Extract<Block, { type: 'text' }>): string {
  let html = escapeHtml(block.content);
  if (block.format.italic) html = `<em>${html}</em>`;
  if (block.format.bold) html = `<strong>${html}</strong>`;
  return `<p>${html}</p>`;
}

function renderBlock(block: Block, imageUrl: (fileId: string) => string): string {
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
      return `<figure><img src="${escapeHtml(imageUrl(block.file_id))}" alt="${escapeHtml(block.alt)}" loading="lazy"></figure>`;
    case 'link':
      return `<p><a href="${escapeHtml(block.url)}" rel="noopener noreferrer nofollow">${escapeHtml(block.label || block.url)}</a></p>`;
    case 'divider':
      return '<hr>';
  }
}

/** Where the per-view beacon script goes; the cached page is shared by every view. */
export const BEACON_SLOT = '<!--beacon-->';

function document(title: string, body: string, head = ''): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title><link rel="stylesheet" href="/assets/page.css">${head}</head>` +
    `<body><main>${body}</main></body></html>`
  );
}

export function renderTagPage(tag: PageTag, imageUrl: (fileId: string) => string): string {
  const blocks = tag.blocks.map((block) => renderBlock(block, imageUrl)).join('');
  return document(tag.title, `<article><h1>${escapeHtml(tag.title)}</h1>${blocks}</article>`, BEACON_SLOT);
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

export const NOT_FOUND_PAGE = document(
  'Page not found',
  '<div class="not-found"><h1>Page not found</h1><p>This tag does not exist, was deleted, or is not shared publicly.</p></div>',
);
