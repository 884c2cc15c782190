import { createHash } from 'node:crypto';
import type { ThemePreset } from '../../db/schema.js';
import { THEME_PRESETS } from '../tags/index.js';
import { contrastRatio, mix, shadeUntil, WCAG_AA } from './contrast.js';

/**
 * The looks of a public page: a preset (its palette, styled by page.css's `.theme-<preset>`
 * rules) and an accent colour, the owner's or the preset's own. Every colour the page shows
 * text in is worked out here, so the contrast rules live in one place:
 *
 * - Text on a filled accent (bold buttons) is near-white or near-black, whichever contrasts
 *   more with the accent. When neither reaches AA (4.5:1) with the accent as given (mid-tones
 *   such as #ff7a00 or #3c9f5c), the fill is darkened (under near-white text) or lightened
 *   (under near-black text) just enough to reach it: the button keeps the accent's hue.
 * - The accent as text (links, badges) is darkened on light backgrounds, lightened on dark
 *   ones, just enough to reach AA on every background of that kind that page.css paints.
 * - Body text on each palette is AA by construction; test/tags/themes.test.ts checks it.
 */

export { THEME_PRESETS };

export function isThemePreset(value: unknown): value is ThemePreset {
  return (THEME_PRESETS as readonly unknown[]).includes(value);
}

const ACCENT = /^#[0-9a-f]{6}$/;

/** An accent as stored: #rrggbb in lower case. Anything else is not an accent. */
export function isAccent(value: unknown): value is string {
  return typeof value === 'string' && ACCENT.test(value);
}

/** Text on a filled accent: one of these two, whichever contrasts more. */
export const NEAR_WHITE = '#fcfcfd';
export const NEAR_BLACK = '#111318';

/** The colours of one colour scheme of a preset; page.css paints with them as custom properties. */
interface Palette {
  scheme: 'light' | 'dark';
  /** Body text, and the backgrounds it sits on: the page, the card, a button. */
  fg: string;
  bg: string;
  surface: string;
  button: string;
  /** Secondary text (captions, file sizes, labels). */
  muted: string;
  line: string;
  info: string;
  warning: string;
  success: string;
  error: string;
  shadow: string;
}

const LIGHT: Palette = {
  scheme: 'light',
  fg: '#1d1d1f',
  bg: '#eef1f6',
  surface: '#ffffff',
  button: '#f6f8fb',
  muted: '#5f6368',
  line: '#dfe3ea',
  info: '#0b57d0',
  warning: '#a05a00',
  success: '#146c2e',
  error: '#b3261e',
  shadow: '0 1px 2px rgb(16 24 40 / 6%), 0 8px 24px rgb(16 24 40 / 6%)',
};

const DIM: Palette = {
  scheme: 'dark',
  fg: '#e8eaed',
  bg: '#0f1012',
  surface: '#1b1c1f',
  button: '#25272b',
  muted: '#a8abb0',
  line: '#34373c',
  info: '#8ab4f8',
  warning: '#fdd663',
  success: '#81c995',
  error: '#f28b82',
  shadow: '0 1px 2px rgb(0 0 0 / 30%), 0 8px 24px rgb(0 0 0 / 25%)',
};

interface Preset {
  /** The accent when the owner chose none. */
  accent: string;
  palette: Palette;
  /** The palette when the visitor's system asks for dark pages; none: the preset is always `palette`. */
  dark?: Palette;
}

const PRESETS: Record<ThemePreset, Preset> = {
  // Today's look: a card on a soft tint, following the visitor's light or dark setting.
  default: { accent: '#0b57d0', palette: LIGHT, dark: DIM },
  // Plain: white page, black type, no card.
  minimal: {
    accent: '#1f1f1f',
    palette: {
      ...LIGHT,
      fg: '#111111',
      bg: '#ffffff',
      surface: '#ffffff',
      button: '#ffffff',
      muted: '#595959',
      line: '#d4d4d4',
      shadow: 'none',
    },
  },
  // Big type and filled accent buttons on the accent's tint.
  bold: {
    accent: '#6d28d9',
    palette: {
      ...LIGHT,
      fg: '#14121a',
      muted: '#55505f',
      line: '#e4e0ec',
      shadow: '0 2px 4px rgb(20 18 26 / 6%), 0 18px 48px rgb(20 18 26 / 12%)',
    },
  },
  // Light type on blue-black, whatever the visitor's setting.
  dark: {
    accent: '#7cc4fa',
    palette: {
      ...DIM,
      fg: '#eceef3',
      bg: '#0a0c11',
      surface: '#141821',
      button: '#1b202b',
      muted: '#a6adbb',
      line: '#2b3240',
      shadow: '0 1px 2px rgb(0 0 0 / 40%), 0 12px 32px rgb(0 0 0 / 35%)',
    },
  },
};

/** The palettes of a scheme, across presets: the accent's text shades must read on all of them. */
function palettesOf(scheme: Palette['scheme']): Palette[] {
  return Object.values(PRESETS)
    .flatMap((preset) => [preset.palette, preset.dark ?? []].flat())
    .filter((palette) => palette.scheme === scheme);
}

/** Every background page.css puts text of a scheme on (the tint of the accent is added per accent). */
const GROUNDS = {
  light: palettesOf('light').flatMap((palette) => [palette.bg, palette.surface, palette.button]),
  dark: palettesOf('dark').flatMap((palette) => [palette.bg, palette.surface, palette.button]),
};

/** How much of the accent tints a background (the page's glow, the file badges). */
const TINT = { light: { base: '#ffffff', share: 0.1 }, dark: { base: '#1b1c1f', share: 0.16 } };

/** What an accent becomes on the page, each colour as #rrggbb. */
export interface AccentColours {
  /** As chosen: decoration only (bars, tints), never text or text's background. */
  accent: string;
  /** A filled accent's background (buttons), and the text on it. */
  fill: string;
  onFill: string;
  /** The accent as text on light and on dark backgrounds, and its tint as a background behind such text. */
  inkLight: string;
  inkDark: string;
  tintLight: string;
  tintDark: string;
}

const readsOn = (grounds: string[]) => (colour: string) => grounds.every((ground) => contrastRatio(colour, ground) >= WCAG_AA);

/** The accent worked out for every place the page shows it (see the rules at the top). */
export function accentColours(accent: string): AccentColours {
  const onFill = contrastRatio(accent, NEAR_WHITE) >= contrastRatio(accent, NEAR_BLACK) ? NEAR_WHITE : NEAR_BLACK;
  const fill = shadeUntil(accent, onFill === NEAR_WHITE ? '#000000' : '#ffffff', readsOn([onFill]));
  const tintLight = mix(accent, TINT.light.base, 1 - TINT.light.share);
  const tintDark = mix(accent, TINT.dark.base, 1 - TINT.dark.share);
  return {
    accent,
    fill,
    onFill,
    inkLight: shadeUntil(accent, '#000000', readsOn([...GROUNDS.light, tintLight])),
    inkDark: shadeUntil(accent, '#ffffff', readsOn([...GROUNDS.dark, tintDark])),
    tintLight,
    tintDark,
  };
}

/** A page's theme as the renderer takes it. */
export interface PageTheme {
  preset: ThemePreset;
  /** The class of the page's <html>, which page.css styles. */
  className: string;
  colours: AccentColours;
  /** The address of the owner's accent stylesheet; none for the preset's own accent (page.css has it). */
  stylesheet?: string;
}

/** The theme of a tag: `accent` as stored (#rrggbb, or null for the preset's own). */
export function pageTheme(preset: ThemePreset, accent: string | null): PageTheme {
  const own = isAccent(accent) ? accent : null;
  return {
    preset,
    className: `theme-${preset}`,
    colours: accentColours(own ?? PRESETS[preset].accent),
    stylesheet: own ? accentStylesheet(own).path : undefined,
  };
}

export const DEFAULT_THEME = pageTheme('default', null);

/** The palette a preset shows when nothing asks for dark: what a link preview image is drawn in. */
export function presetPalette(preset: ThemePreset): Readonly<Palette> {
  return PRESETS[preset].palette;
}

function accentDeclarations(colours: AccentColours): string {
  return (
    `--accent:${colours.accent};--accent-fill:${colours.fill};--on-accent:${colours.onFill};` +
    `--accent-ink-light:${colours.inkLight};--accent-ink-dark:${colours.inkDark};` +
    `--accent-tint-light:${colours.tintLight};--accent-tint-dark:${colours.tintDark};`
  );
}

function paletteDeclarations(palette: Palette): string {
  const { scheme, shadow, ...colours } = palette;
  // page.css paints links with --ink and tints with --accent-tint: the accent's shades for this scheme.
  return (
    `color-scheme:${scheme};--ink:var(--accent-ink-${scheme});--accent-tint:var(--accent-tint-${scheme});--shadow:${shadow};` +
    Object.entries(colours)
      .map(([name, value]) => `--${name}:${value};`)
      .join('')
  );
}

/**
 * The presets' colours, appended to page.css: each preset's palette (the default's dark one
 * under prefers-color-scheme) and own accent. An accent stylesheet, linked after page.css,
 * overrides the accent's properties: its `:root` is as specific as `.theme-<preset>` and later.
 */
export const PRESET_STYLES = Object.entries(PRESETS)
  .map(([name, preset]) => {
    const rule = `.theme-${name}{${paletteDeclarations(preset.palette)}${accentDeclarations(accentColours(preset.accent))}}`;
    const dark = preset.dark ? `@media (prefers-color-scheme: dark){.theme-${name}{${paletteDeclarations(preset.dark)}}}` : '';
    return `${rule}\n${dark}`;
  })
  .join('\n');

/**
 * The stylesheet of one accent, served at an address naming the colour and a hash of the rules:
 * browsers may keep it for a year, and a change to how accents are worked out gets new addresses.
 */
export function accentStylesheet(accent: string): { path: string; css: string } {
  const css = `:root{${accentDeclarations(accentColours(accent))}}\n`;
  const hash = createHash('sha256').update(css).digest('hex').slice(0, 10);
  return { path: `/assets/accent/${accent.slice(1)}.${hash}.css`, css };
}

const ACCENT_STYLESHEET_PATH = /^([0-9a-f]{6})\.([0-9a-f]{10})\.css$/;

/** The stylesheet at /assets/accent/{file}: undefined unless `file` is one accentStylesheet names. */
export function accentStylesheetAt(file: string): string | undefined {
  const match = ACCENT_STYLESHEET_PATH.exec(file);
  if (!match) return undefined;
  const sheet = accentStylesheet(`#${match[1]}`);
  return sheet.path.endsWith(`/${file}`) ? sheet.css : undefined;
}
