import { join } from 'node:path';
import { api } from '../lib/api.js';
import { createAccountWith, makeCli, type Account } from '../lib/data.js';
import { startService } from '../lib/service.js';
import { pageBody } from '../scenarios/tag-fixture.js';

const PLACES = [
  'Museum hall',
  'Platform',
  'Meeting room',
  'Trail marker',
  'Shelf',
  'Menu table',
  'Exhibit',
  'Parking level',
  'Gate',
  'Lab bench',
];
const THINGS = [
  'opening hours',
  'how to book',
  'safety notes',
  'what you are looking at',
  'today’s specials',
  'lost and found',
  'accessibility',
  'contact',
];

/**
 * The dataset's owner and tags, made the way a customer makes them: the account with the CLI,
 * the tags through the API of a short-lived `tagsvc serve` on the same data (their rows, short
 * ids and tag.created events are then exactly what the service writes).
 */
export async function createOwnerAndTags(options: {
  root: string;
  env: NodeJS.ProcessEnv;
  tags: number;
  progress(message: string): void;
}): Promise<{ account: Account; tagIds: string[] }> {
  const account = await createAccountWith(makeCli(options.root, options.env), 'enterprise');
  const service = await startService({
    root: options.root,
    name: 'tagsvc serve (dataset setup)',
    env: { ...options.env, LOG_LEVEL: 'warn', RATE_LIMITS: 'false' },
    logFile: join(options.env.DATA_DIR!, 'setup-service.log'),
  });
  const tagIds: string[] = [];
  try {
    for (let first = 0; first < options.tags; first += 100) {
      const bodies = Array.from({ length: Math.min(100, options.tags - first) }, (_, i) => {
        const n = first + i;
        return pageBody(`${PLACES[n % PLACES.length]} ${Math.floor(n / PLACES.length) + 1} — ${THINGS[n % THINGS.length]}`);
      });
      const created = await api<{ tags: Array<{ id: string }> }>(service.baseUrl, account.key, 'POST', '/v1/tags/batch', {
        body: { tags: bodies },
      });
      tagIds.push(...created.tags.map((t) => t.id));
    }
    options.progress(`  created ${tagIds.length.toLocaleString('en-US')} tags through the API`);
  } finally {
    await service.close();
  }
  return { account, tagIds };
}
