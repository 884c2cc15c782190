/** Colour arithmetic for WCAG contrast, on colours written #rrggbb. */

/** WCAG 2 level AA for body text: the least contrast ratio a page's text may have. */
export const WCAG_AA = 4.5;

function channels(hex: string): [number, number, number] {
  const value = Number.parseInt(hex.slice(1), 16);
  return [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff];
}

function toHex(channels: number[]): string {
  return `#${channels.map((channel) => Math.round(channel).toString(16).padStart(2, '0')).join('')}`;
}

/** WCAG 2's relative luminance: each sRGB channel made linear, weighted as the eye sees them. */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = channels(hex).map((channel) => {
    const s = channel / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2's contrast ratio, from 1 (the same) to 21 (black on white), whichever is lighter. */
export function contrastRatio(a: string, b: string): number {
  const [lighter, darker] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

/** `from` moved toward `toward` by `amount` (0: from, 1: toward), channel by channel in sRGB. */
export function mix(from: string, toward: string, amount: number): string {
  const target = channels(toward);
  return toHex(channels(from).map((channel, index) => channel + (target[index]! - channel) * amount));
}

/**
 * The least shade of `colour` toward `toward` (black or white, in 1 % steps) for which `ok`
 * holds: `colour` itself when it does already. Mixing toward black or white keeps the hue.
 */
export function shadeUntil(colour: string, toward: string, ok: (shade: string) => boolean): string {
  for (let step = 0; step <= 100; step++) {
    const shade = mix(colour, toward, step / 100);
    if (ok(shade)) return shade;
  }
  return toward;
}
