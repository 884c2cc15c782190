import type { Config } from '../../config.js';
import type { ServiceContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import { inClear, keyring, resealColumn, seal, UnknownSealingKey, type Keyring } from '../../lib/sealed-secrets.js';
import * as repo from './webhooks.repository.js';

/**
 * Webhook signing secrets are stored sealed (lib/sealed-secrets.ts) under SECRET_KEY, and
 * opened only to sign a delivery or to show the secret to its owner.
 */

/** The HKDF info of their key: it seals webhook secrets and nothing else. */
const PURPOSE = 'webhook signing secrets';
/** Rows read per statement when sealing the secrets still in clear. */
const BATCH = 500;

const keyrings = new WeakMap<Config, Keyring>();

function keysOf(config: Config): Keyring {
  let keys = keyrings.get(config);
  if (!keys) {
    keys = keyring(PURPOSE, config.secretKey, config.previousSecretKeys);
    keyrings.set(config, keys);
  }
  return keys;
}

export function sealWebhookSecret(ctx: Pick<ServiceContext, 'config'>, secret: string): string {
  return seal(keysOf(ctx.config), secret);
}

/** Keys found missing, so each is logged once per process rather than at every delivery. */
const reportedMissing = new Set<string>();

/**
 * A stored secret in clear. A value not in the sealed form was written before secrets were
 * sealed (by an older version still running during an upgrade): it is used as it is until the
 * next start, or `tagsvc secrets rotate`, seals it. A secret sealed under a SECRET_KEY this
 * process does not have is a 500 naming the fix, logged once; its deliveries fail and are
 * retried, so they go out once the key is configured again.
 */
export function webhookSecretInClear(ctx: ServiceContext, stored: string): string {
  try {
    return inClear(keysOf(ctx.config), stored);
  } catch (error) {
    if (!(error instanceof UnknownSealingKey)) throw error;
    if (!reportedMissing.has(error.kid)) {
      reportedMissing.add(error.kid);
      ctx.log.error(
        { kid: error.kid },
        `a webhook signing secret is ${error.message}: add the SECRET_KEY that sealed it to SECRET_KEY_PREVIOUS`,
      );
    }
    throw new ApiError(
      'internal_error',
      "The webhook's signing secret is encrypted with a key this server does not have; the operator must add the SECRET_KEY it was encrypted with to SECRET_KEY_PREVIOUS",
    );
  }
}

/**
 * Seals the secrets still stored in clear, at every start: after the upgrade that brought
 * sealing, once; afterwards one query that finds none. Each row is replaced only if unchanged,
 * so a secret rotated meanwhile is never overwritten.
 */
export async function sealPlaintextWebhookSecrets(ctx: Pick<ServiceContext, 'db' | 'config'>): Promise<number> {
  let sealed = 0;
  for (;;) {
    const rows = await repo.plaintextSecrets(ctx.db, BATCH);
    for (const row of rows) {
      if (await repo.replaceSecret(ctx.db, row.id, row.secret, sealWebhookSecret(ctx, row.secret))) sealed++;
    }
    if (rows.length < BATCH) return sealed;
  }
}

/**
 * `tagsvc secrets rotate`: re-seals with the current SECRET_KEY every webhook secret sealed with
 * a previous one (or still in clear), so SECRET_KEY_PREVIOUS can then be dropped. Secrets no
 * configured key opens are left as they are, and the command fails naming how many.
 */
export async function resealWebhookSecrets(ctx: ServiceContext): Promise<{ webhook_secrets: number; reencrypted: number }> {
  const { total, reencrypted, unreadable } = await resealColumn(keysOf(ctx.config), {
    after: async (after, limit) => (await repo.secretsAfter(ctx.db, after, limit)).map((row) => ({ key: row.id, value: row.secret })),
    replace: (id, previous, next) => repo.replaceSecret(ctx.db, id, previous, next),
  });
  if (unreadable > 0) {
    throw new ApiError(
      'internal_error',
      `${reencrypted} of ${total} webhook secrets re-encrypted; ${unreadable} are encrypted with a key that is neither SECRET_KEY ` +
        'nor in SECRET_KEY_PREVIOUS: add that key to SECRET_KEY_PREVIOUS and run the command again',
    );
  }
  return { webhook_secrets: total, reencrypted };
}
