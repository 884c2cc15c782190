import escapeHtml from 'escape-html';
import sharp from 'sharp';
import { presetPalette, type PageTheme } from './theme.js';

/**
 * A page's link preview image (og:image): its title in its theme's colours, and the host that
 * serves it, drawn as SVG and rendered to PNG by sharp (librsvg, on libvips' threads).
 */

/** The size link previews ask for (Open Graph's large card: 1.91:1). */
export const OG_IMAGE_SIZE = { width: 1200, height: 630 } as const;

export interface OgImageInput {
  title: string;
  theme: PageTheme;
  /** The host of the page's address, shown at the foot: where the link goes. */
  host: string;
  /** A password-protected page: its image shows a lock instead of the title, which is not public. */
  locked: boolean;
}

/**
 * Text is set in whatever sans-serif font the machine has, through fontconfig: DejaVu Sans comes
 * with Debian's fontconfig (which Chromium and librsvg need), Liberation Sans and Arial elsewhere.
 */
const FONT = 'DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif';

const PADDING = 80;
const TEXT_WIDTH = OG_IMAGE_SIZE.width - 2 * PADDING;
const MAX_LINES = 3;
/** The title's sizes, largest first: the largest at which it fits in MAX_LINES, else the last, cut. */
const TITLE_SIZES = [76, 64, 54];

/**
 * A character's advance in ems, measured on the widest of the fonts above (DejaVu Sans Bold) and
 * rounded up: a line measured by these never runs past the edge, it only wraps a little early in
 * a narrower font.
 */
function advance(char: string): number {
  if (char === ' ') return 0.35;
  if (/[iIl.,:;!|'`]/.test(char)) return 0.39;
  if (/[fjrt()[\]{}/\\-]/.test(char)) return 0.5;
  if (/[mw]/.test(char)) return 1.05;
  if (/[MW@—]/.test(char)) return 1.11;
  if (/[a-z0-9]/.test(char)) return 0.72;
  if (/[A-Z]/.test(char)) return 0.86;
  // Accented letters, East Asian wide characters, emoji: at most about an em.
  return char.codePointAt(0)! >= 0x1100 ? 1.05 : 0.86;
}

const widthOf = (text: string, size: number) => [...text].reduce((sum, char) => sum + advance(char), 0) * size;

/** Words broken to lines of at most `width`; a word wider than a line is broken between characters. */
function wrap(text: string, size: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word;
    if (widthOf(candidate, size) <= width) {
      line = candidate;
      continue;
    }
    if (line) lines.push(line);
    line = '';
    for (const char of word) {
      if (line && widthOf(line + char, size) > width) {
        lines.push(line);
        line = '';
      }
      line += char;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** The title as lines at the largest size that fits; at the smallest, cut after MAX_LINES with an ellipsis. */
export function titleLines(title: string): { size: number; lines: string[] } {
  for (const size of TITLE_SIZES) {
    const lines = wrap(title, size, TEXT_WIDTH);
    if (lines.length <= MAX_LINES) return { size, lines };
  }
  const size = TITLE_SIZES.at(-1)!;
  const lines = wrap(title, size, TEXT_WIDTH).slice(0, MAX_LINES);
  let last = lines[MAX_LINES - 1]!;
  while (last && widthOf(`${last}…`, size) > TEXT_WIDTH) last = [...last].slice(0, -1).join('');
  lines[MAX_LINES - 1] = `${last.trimEnd()}…`;
  return { size, lines };
}

/** What the image is painted with: its background (one colour, or a gradient's two), its text, and a bar of accent. */
interface Paint {
  from: string;
  to: string;
  text: string;
  secondary: string;
  bar: string | null;
}

function paintOf(theme: PageTheme): Paint {
  const palette = presetPalette(theme.preset);
  const { colours } = theme;
  switch (theme.preset) {
    case 'minimal':
      return { from: palette.bg, to: palette.bg, text: palette.fg, secondary: palette.muted, bar: null };
    case 'bold':
      return { from: colours.fill, to: colours.fill, text: colours.onFill, secondary: colours.onFill, bar: null };
    case 'dark':
      return { from: palette.surface, to: palette.bg, text: palette.fg, secondary: palette.muted, bar: colours.inkDark };
    case 'default':
      return { from: colours.tintLight, to: palette.bg, text: palette.fg, secondary: palette.muted, bar: colours.accent };
  }
}

/** A padlock, centred on (x, y), its keyhole in the background's colour. */
function lock(x: number, y: number, colour: string, background: string): string {
  return (
    `<path d="M${x - 56} ${y - 20} v-36 a56 56 0 0 1 112 0 v36" fill="none" stroke="${colour}" stroke-width="22"/>` +
    `<rect x="${x - 92}" y="${y - 20}" width="184" height="150" rx="22" fill="${colour}"/>` +
    `<circle cx="${x}" cy="${y + 42}" r="17" fill="${background}"/><rect x="${x - 7}" y="${y + 50}" width="14" height="38" rx="7" fill="${background}"/>`
  );
}

/** The brand mark (the favicon's squares) and the host, at the foot. */
function footer(paint: Paint, host: string, centred: boolean): string {
  const y = OG_IMAGE_SIZE.height - PADDING;
  const label = escapeHtml(host);
  const text = `font-family="${FONT}" font-size="30" font-weight="600" fill="${paint.secondary}"`;
  if (centred) return `<text x="${OG_IMAGE_SIZE.width / 2}" y="${y}" text-anchor="middle" ${text}>${label}</text>`;
  const mark =
    `<rect x="${PADDING}" y="${y - 34}" width="44" height="44" rx="11" fill="${paint.secondary}"/>` +
    `<rect x="${PADDING + 9}" y="${y - 25}" width="26" height="26" rx="6" fill="${paint.from}"/>` +
    `<rect x="${PADDING + 15}" y="${y - 19}" width="14" height="14" rx="3" fill="${paint.secondary}"/>`;
  return `${mark}<text x="${PADDING + 64}" y="${y}" ${text}>${label}</text>`;
}

export function ogImageSvg({ title, theme, host, locked }: OgImageInput): string {
  const { width, height } = OG_IMAGE_SIZE;
  const paint = paintOf(theme);
  const background =
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${paint.from}"/>` +
    `<stop offset="1" stop-color="${paint.to}"/></linearGradient></defs><rect width="${width}" height="${height}" fill="url(#g)"/>` +
    (paint.bar ? `<rect width="${width}" height="14" fill="${paint.bar}"/>` : '');
  let content: string;
  if (locked) {
    content = lock(width / 2, height / 2 - 60, paint.text, paint.from) + footer(paint, host, true);
  } else {
    // A lone surrogate (JSON can carry one) would make the SVG invalid UTF-8; in a u-mode class only lone ones match.
    const { size, lines } = titleLines(title.replace(/[\uD800-\uDFFF]/gu, '\uFFFD'));
    const lineHeight = Math.round(size * 1.18);
    const top = PADDING + 40 + size;
    const spans = lines.map((line, index) => `<tspan x="${PADDING}" y="${top + index * lineHeight}">${escapeHtml(line)}</tspan>`);
    content =
      `<text font-family="${FONT}" font-size="${size}" font-weight="700" fill="${paint.text}">${spans.join('')}</text>` +
      footer(paint, host, false);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${background}${content}</svg>`;
}

/** Drawn once per page version (the caller keeps it): the smallest file is worth the few extra milliseconds. */
export function renderOgImage(input: OgImageInput): Promise<Buffer> {
  return sharp(Buffer.from(ogImageSvg(input)))
    .png({ compressionLevel: 9 })
    .toBuffer();
}
