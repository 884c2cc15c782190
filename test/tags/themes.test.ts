import { beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { createTag } from '../files/helpers.js';
import { contrastRatio, relativeLuminance } from '../../src/features/pages/contrast.js';
import { accentColours, accentStylesheetAt, pageTheme, PRESET_STYLES, THEME_PRESETS } from '../../src/features/pages/index.js';
import { NEAR_BLACK, NEAR_WHITE } from '../../src/features/pages/theme.js';

/**
 * Page themes: the WCAG contrast arithmetic, what an accent becomes (text on it, its shades as
 * text), the presets' palettes, and how a page carries its theme without an inline style.
 */

const AA = 4.5;

/** Each `.theme-<preset>{…}` rule of the presets' stylesheet as its custom properties (the dark-scheme ones too). */
function paletteRules(css: string): Array<{ selector: string; properties: Record<string, string> }> {
  return [...css.matchAll(/(\.theme-[a-z]+)\{([^{}]*)\}/g)].map((match) => ({
    selector: match[1]!,
    properties: Object.fromEntries(
      match[2]!
        .split(';')
        .filter(Boolean)
        .map((declaration) => declaration.split(/:(.*)/s).slice(0, 2) as [string, string]),
    ),
  }));
}

/** The accent properties of an accent stylesheet. */
function accentProperties(css: string): Record<string, string> {
  const body = /^:root\{([^{}]*)\}\n$/.exec(css)?.[1];
  expect(body, css).toBeDefined();
  return Object.fromEntries(
    body!
      .split(';')
      .filter(Boolean)
      .map((declaration) => declaration.split(':') as [string, string]),
  );
}

/** 216 web-safe colours and the mid-tones where neither near-white nor near-black text reaches AA. */
const ACCENTS = [
  ...[0x00, 0x33, 0x66, 0x99, 0xcc, 0xff].flatMap((r) =>
    [0x00, 0x33, 0x66, 0x99, 0xcc, 0xff].flatMap((g) =>
      [0x00, 0x33, 0x66, 0x99, 0xcc, 0xff].map((b) => `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`),
    ),
  ),
  '#777777',
  '#808080',
  '#ff7a00',
  '#3c9f5c',
  '#0e8a7d',
  '#d94f00',
  '#23884a',
  '#e11d48',
  '#0ea5e9',
  '#10b981',
  '#f59e0b',
  '#8b5cf6',
  '#2563eb',
  '#fefefe',
  '#010101',
];

describe('WCAG contrast arithmetic', () => {
  it('gives the relative luminance and contrast ratios WCAG publishes', () => {
    expect(relativeLuminance('#ffffff')).toBe(1);
    expect(relativeLuminance('#000000')).toBe(0);
    expect(contrastRatio('#000000', '#ffffff')).toBe(21);
    expect(contrastRatio('#ffffff', '#000000')).toBe(21);
    expect(contrastRatio('#0b57d0', '#0b57d0')).toBe(1);
    // The classic pair: #777 on white just fails AA, #767676 is the lightest grey that passes.
    expect(contrastRatio('#777777', '#ffffff').toFixed(2)).toBe('4.48');
    expect(contrastRatio('#767676', '#ffffff').toFixed(2)).toBe('4.54');
    expect(contrastRatio('#595959', '#ffffff').toFixed(2)).toBe('7.00');
    expect(relativeLuminance('#ff0000').toFixed(4)).toBe('0.2126');
    expect(contrastRatio('#ff0000', '#ffffff').toFixed(2)).toBe('4.00');
  });
});

describe('an accent on the page', () => {
  it('gets near-white or near-black text, whichever contrasts more, at AA at least, for every accent', () => {
    for (const accent of ACCENTS) {
      const colours = accentColours(accent);
      const better = contrastRatio(accent, NEAR_WHITE) >= contrastRatio(accent, NEAR_BLACK) ? NEAR_WHITE : NEAR_BLACK;
      expect(colours.onFill, accent).toBe(better);
      expect(contrastRatio(colours.fill, colours.onFill), accent).toBeGreaterThanOrEqual(AA);
      // The accent is kept as the fill whenever its text reads on it as it is.
      if (contrastRatio(accent, better) >= AA) expect(colours.fill, accent).toBe(accent);
      expect(colours.accent).toBe(accent);
    }
  });

  it('darkens (under near-white text) or lightens (under near-black) a mid-tone just enough, keeping its hue', () => {
    const orange = accentColours('#ff7a00');
    expect(contrastRatio('#ff7a00', NEAR_WHITE)).toBeLessThan(AA);
    expect(contrastRatio('#ff7a00', NEAR_BLACK)).toBeGreaterThanOrEqual(AA);
    expect(orange.fill).toBe('#ff7a00');

    const grey = accentColours('#777777');
    expect(grey.onFill).toBe(NEAR_WHITE);
    expect(grey.fill).not.toBe('#777777');
    expect(relativeLuminance(grey.fill)).toBeLessThan(relativeLuminance('#777777'));
    expect(grey.fill).toMatch(/^#([0-9a-f]{2})\1\1$/);

    // Teal and a dark orange: neither text reaches AA on them, so the fill is lightened under near-black.
    for (const accent of ['#0e8a7d', '#d94f00']) {
      expect(Math.max(contrastRatio(accent, NEAR_WHITE), contrastRatio(accent, NEAR_BLACK)), accent).toBeLessThan(AA);
      const { fill, onFill } = accentColours(accent);
      expect(onFill).toBe(NEAR_BLACK);
      expect(relativeLuminance(fill)).toBeGreaterThan(relativeLuminance(accent));
      expect(contrastRatio(fill, onFill)).toBeGreaterThanOrEqual(AA);
      // Just enough: a few 1 % steps, not a pastel.
      expect(contrastRatio(fill, onFill), accent).toBeLessThan(AA + 0.2);
      // Mixed toward white: the channels keep their order, so the hue stays.
      const channels = (colour: string) => [1, 3, 5].map((i) => Number.parseInt(colour.slice(i, i + 2), 16));
      const order = (colour: string) => channels(colour).map((_, index, all) => all.filter((value) => value < all[index]!).length);
      expect(order(fill), accent).toEqual(order(accent));
    }
  });

  it('as text, reads at AA on every background of its scheme that page.css paints, and on its own tint', () => {
    const rules = paletteRules(PRESET_STYLES);
    const grounds = (scheme: string) =>
      rules
        .filter((rule) => rule.properties['color-scheme'] === scheme)
        .flatMap((rule) => ['bg', 'surface', 'button'].map((name) => rule.properties[`--${name}`]!));
    const light = grounds('light');
    const dark = grounds('dark');
    expect(light.length).toBeGreaterThanOrEqual(9);
    expect(dark.length).toBeGreaterThanOrEqual(6);
    for (const accent of ACCENTS) {
      const colours = accentColours(accent);
      for (const ground of [...light, colours.tintLight])
        expect(contrastRatio(colours.inkLight, ground), `${accent} on ${ground}`).toBeGreaterThanOrEqual(AA);
      for (const ground of [...dark, colours.tintDark])
        expect(contrastRatio(colours.inkDark, ground), `${accent} on ${ground}`).toBeGreaterThanOrEqual(AA);
    }
    // A dark enough accent is its own ink on light pages.
    expect(accentColours('#0b57d0').inkLight).toBe('#0b57d0');
  });
});

describe('the presets', () => {
  it('are the four the API takes, each with a palette whose text reads at AA on its backgrounds', () => {
    expect([...THEME_PRESETS]).toEqual(['default', 'minimal', 'bold', 'dark']);
    const rules = paletteRules(PRESET_STYLES).filter((rule) => rule.properties['--fg']);
    expect(rules.map((rule) => rule.selector)).toEqual([
      '.theme-default',
      '.theme-default',
      '.theme-minimal',
      '.theme-bold',
      '.theme-dark',
    ]);
    for (const { selector, properties } of rules) {
      // Bold's page is its accent's tint; the others' tints are a glow behind the card or a badge.
      const grounds = ['--bg', '--surface', '--button', `--accent-tint-${properties['color-scheme']}`].map((name) => {
        const own = properties[name] ?? rules.find((rule) => rule.selector === selector && rule.properties[name])?.properties[name];
        expect(own, `${selector} ${name}`).toBeDefined();
        return own!;
      });
      for (const text of ['--fg', '--muted']) {
        for (const ground of grounds) {
          expect(contrastRatio(properties[text]!, ground), `${selector} ${text} on ${ground}`).toBeGreaterThanOrEqual(AA);
        }
      }
    }
    // Only the default follows the visitor's dark setting; dark is dark whatever it is.
    expect(PRESET_STYLES).toMatch(/@media \(prefers-color-scheme: dark\)\{\.theme-default\{color-scheme:dark;/);
    expect(PRESET_STYLES.match(/@media/g)).toHaveLength(1);
    expect(PRESET_STYLES).toMatch(/\.theme-dark\{color-scheme:dark;/);
  });

  it('gives a theme its class, and a stylesheet only for an accent of its own (anything not #rrggbb is none)', () => {
    expect(pageTheme('bold', null)).toMatchObject({ preset: 'bold', className: 'theme-bold', stylesheet: undefined });
    expect(pageTheme('dark', '#ff7a00').stylesheet).toMatch(/^\/assets\/accent\/ff7a00\.[0-9a-f]{10}\.css$/);
    for (const invalid of ['red', '#FFF', '#ff7a0', 'ff7a00', '#ff7a00;}', '#FF7A00']) {
      expect(pageTheme('minimal', invalid).stylesheet, invalid).toBeUndefined();
    }
    expect(accentStylesheetAt(pageTheme('dark', '#ff7a00').stylesheet!.split('/').pop()!)).toContain('--accent:#ff7a00;');
  });
});

describe('themed pages', () => {
  const t = useApp();
  const owner = useAccount(t);

  const page = async (shortId: string) => {
    const response = await request(t, 'GET', `/t/${shortId}`);
    expect(response.status, response.text.slice(0, 300)).toBe(200);
    return response;
  };

  const themed = (preset: string, accent?: string) =>
    createTag(t, owner.key, {
      title: `A ${preset} page`,
      content: [{ type: 'link', url: 'https://example.com/', label: 'Go' }],
      theme: accent ? { preset, accent_color: accent } : { preset },
    });

  it('carries its preset as the class of <html>, and links its accent’s stylesheet after page.css', async () => {
    for (const preset of THEME_PRESETS) {
      const tag = await themed(preset);
      const { text } = await page(tag.short_id);
      expect(text, preset).toContain(`<html lang="en" class="theme-${preset}">`);
      expect(text).not.toContain('/assets/accent/');
    }
    const tag = await themed('bold', '#FF7A00');
    const { text } = await page(tag.short_id);
    const links = [...text.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((match) => match[1]);
    expect(links).toEqual(['/assets/page.css', pageTheme('bold', '#ff7a00').stylesheet]);
    expect(text).toContain('<html lang="en" class="theme-bold">');
  });

  it('keeps the CSP strict: styles from the service only, no inline style anywhere', async () => {
    const tag = await themed('dark', '#3c9f5c');
    const response = await page(tag.short_id);
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.text).not.toMatch(/<style|\sstyle=/i);
  });

  it('serves an accent’s stylesheet with its colours, cached for a year', async () => {
    const path = pageTheme('default', '#3c9f5c').stylesheet!;
    const response = await request(t, 'GET', path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const properties = accentProperties(response.text);
    expect(properties['--accent']).toBe('#3c9f5c');
    expect(contrastRatio(properties['--accent-fill']!, properties['--on-accent']!)).toBeGreaterThanOrEqual(AA);
    expect([NEAR_WHITE, NEAR_BLACK]).toContain(properties['--on-accent']);
    expect(contrastRatio(properties['--accent-ink-light']!, '#ffffff')).toBeGreaterThanOrEqual(AA);
    expect(contrastRatio(properties['--accent-ink-dark']!, '#0f1012')).toBeGreaterThanOrEqual(AA);
  });

  it('answers 404 for any other address under /assets/accent/', async () => {
    const path = pageTheme('default', '#3c9f5c').stylesheet!;
    const hash = path.split('.').at(-2)!;
    for (const wrong of [
      `/assets/accent/3C9F5C.${hash}.css`,
      '/assets/accent/3c9f5c.css',
      '/assets/accent/3c9f5c.0000000000.css',
      `/assets/accent/3c9f5c.${hash}.js`,
      `/assets/accent/zzzzzz.${hash}.css`,
      `/assets/accent/3c9f5c.${hash}.css.map`,
      '/assets/accent/..%2Fpage.css',
      `/assets/accent/3c9f5c.${hash}.css%00`,
    ]) {
      expect((await request(t, 'GET', wrong)).status, wrong).toBe(404);
    }
  });

  it('serves the presets’ colours in page.css', async () => {
    const css = await request(t, 'GET', '/assets/page.css');
    for (const preset of THEME_PRESETS) expect(css.text).toContain(`.theme-${preset}{color-scheme:`);
    expect(css.text.endsWith(`${PRESET_STYLES}\n`)).toBe(true);
  });

  describe('a change of theme', () => {
    let tag: { id: string; short_id: string };
    beforeAll(async () => {
      tag = await themed('default');
    });

    it('shows at once: the page is cached per version, and the theme is part of it', async () => {
      await page(tag.short_id);
      const put = async (theme: Record<string, unknown>) => {
        const response = await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: owner.key, body: { theme } });
        expect(response.status, response.text).toBe(200);
      };
      await put({ preset: 'minimal', accent_color: '#e11d48' });
      const minimal = (await page(tag.short_id)).text;
      expect(minimal).toContain('class="theme-minimal"');
      expect(minimal).toContain(pageTheme('minimal', '#e11d48').stylesheet);
      await put({ preset: 'minimal', accent_color: null });
      const plain = (await page(tag.short_id)).text;
      expect(plain).toContain('class="theme-minimal"');
      expect(plain).not.toContain('/assets/accent/');
    });
  });
});
