import type { FastifyInstance } from 'fastify';
import { ClickRecorder, Tracker, ViewRecorder } from '../features/analytics/index.js';
import type { Services } from '../services.js';
import { accentRoutes } from './accents.js';
import { publicFileRoutes } from './files.js';
import { healthRoutes } from './health.js';
import { linkRoutes } from './links.js';
import { PageGate } from './gate.js';
import { ogImageRoutes } from './og.js';
import { pageRoutes } from './pages.js';
import { statsRoutes } from './stats.js';
import { unlockRoutes } from './unlock.js';

/**
 * What anyone may reach without a key or a session: the probes, each tag's page with its QR
 * code and link preview image, assets (its accent's stylesheet) and view beacons, the counted
 * redirects of its links, and the files the page shows; and the reports owners shared (/stats/).
 */
export async function registerPublic(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(healthRoutes(services.database.db, services.redis, services.blobs, services.config.dependencyTimeoutMs));
  const recorder = new ViewRecorder(services.database.db, services.log, services.metrics);
  const clicks = new ClickRecorder(services.database.db, services.log, services.metrics);
  app.addHook('onClose', () => Promise.all([recorder.flush(), clicks.flush()]));
  const gate = new PageGate(services);
  const tracker = new Tracker(services, recorder, clicks);
  await app.register(pageRoutes(services, tracker, gate));
  await app.register(linkRoutes(tracker, gate));
  await app.register(unlockRoutes(services, gate, services.limits));
  await app.register(statsRoutes(services, services.limits));
  await app.register(publicFileRoutes(services, gate));
  await app.register(ogImageRoutes(services, gate));
  await app.register(accentRoutes);
}
