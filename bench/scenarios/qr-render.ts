import type { RateScenario } from '../lib/scenario.js';

// Types from the source, code from the build: the bench measures what `tagsvc serve` runs.
type QrModule = typeof import('../../src/features/tags/qr.js');

/**
 * QR rendering in this process, no HTTP: the API caches rendered images, so an HTTP figure
 * would hide it. Every call encodes a different address, as a new tag's code does, so each
 * one misses the module's cache and pays for the full render (and the ETag hash).
 */
function qrRender(format: 'png' | 'svg'): RateScenario {
  return {
    kind: 'rate',
    name: `qr-render-${format}`,
    description: `qrImage(), ${format.toUpperCase()} 512 px, a new address each time`,
    unit: 'renders',
    seconds: (settings) => settings.qrSeconds,
    async prepare() {
      const { qrImage } = (await import(new URL('../../dist/features/tags/qr.js', import.meta.url).href)) as QrModule;
      const options = { format, size: 512, color: '000000', background: 'ffffff' } as const;
      let counter = 0;
      // 8 characters like a real short id, so the code has the same version (size) as a real one.
      return () => qrImage(`http://localhost/s/${(counter++).toString(36).padStart(8, '0')}`, options);
    },
  };
}

export const qrRenderPng = qrRender('png');
export const qrRenderSvg = qrRender('svg');
