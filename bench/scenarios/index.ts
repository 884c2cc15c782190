import type { Scenario } from '../lib/scenario.js';
import { limiterMemory, limiterRedis } from './limiter.js';
import { me } from './me.js';
import { qrRenderPng, qrRenderSvg } from './qr-render.js';
import { page, tag, tagQr } from './tags.js';

/**
 * Every scenario, in the order they run. A new one is a module in this folder exporting a
 * Scenario, appended here; BENCH_ONLY=<name>[,<name>] runs a subset.
 */
export const scenarios: Scenario[] = [me, limiterMemory, limiterRedis, tag, page, tagQr, qrRenderPng, qrRenderSvg];
