import type { FastifyInstance } from 'fastify';
import { Tracker, ViewRecorder } from '../features/analytics/index.js';
import type { Services } from '../services.js';
import { accentRoutes } from './accents.js';
import { publicFileRoutes } from './files.js';
import { healthRoutes } from './health.js';
import { PageGate } from './gate.js';
import { ogImageRoutes } from './og.js';
import { pageRoutes } from './pages.js';
import { unlockRoutes } from './unlock.js';

/**
 * What anyone may reach without a key or a session: the probes, each tag's page with its QR
 * code and link preview image, assets (its accent's stylesheet) and view beacons, and the
 * files the page shows.
 */
export async function registerPublic(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(healthRoutes(services.database.db, services.redis));
  const recorder = new ViewRecorder(services.database.db, services.log, services.metrics);
  app.addHook('onClose', () => recorder.flush());
  const gate = new PageGate(services);
  await app.register(pageRoutes(services, new Tracker(services, recorder), gate));
  await app.register(unlockRoutes(services, gate, services.limits));
  await app.register(publicFileRoutes(services, gate));
  await app.register(ogImageRoutes(services, gate));
  await app.register(accentRoutes);
}
