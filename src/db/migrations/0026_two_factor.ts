import type { Kysely } from 'kysely';

/**
 * Two-factor sign-in (features/accounts/two-factor.service.ts, passkeys.service.ts).
 *
 * totp_credentials: a user's authenticator app, at most one. `secret` is sealed under SECRET_KEY
 * (lib/sealed-secrets.ts); `confirmed_at` is null while enrolment waits for the first code;
 * `last_step` is the 30-second step of the last code accepted, so a code is never taken twice.
 *
 * recovery_codes: ten single-use codes per user, only their SHA-256 kept.
 *
 * passkeys: WebAuthn credentials, keyed by the credential id (base64url) the browser sends back;
 * the COSE public key as base64url, the signature counter, the transports as JSON.
 *
 * pending_sign_ins: a browser that gave the right password and owes the second factor. Only the
 * SHA-256 of its token is kept; it lives minutes (`expires_at`) and ends after a few wrong codes.
 *
 * webauthn_challenges: the one outstanding challenge of a browser (the SHA-256 of the value its
 * form token is bound to) for one purpose; taken, that is deleted, by the answer that uses it.
 *
 * Whether the owner requires two factors is the `two_factor` row of `settings` (migration 0012).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('totp_credentials')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'text')
    .addColumn('last_step', 'integer')
    .execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('recovery_codes_user_idx').on('recovery_codes').column('user_id').execute();

  await db.schema
    .createTable('passkeys')
    .addColumn('credential_id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', 'integer', (c) => c.notNull())
    .addColumn('transports', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('passkeys_user_idx').on('passkeys').column('user_id').execute();

  await db.schema
    .createTable('pending_sign_ins')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('pending_sign_ins_expires_idx').on('pending_sign_ins').column('expires_at').execute();

  await db.schema
    .createTable('webauthn_challenges')
    .addColumn('binding_hash', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('challenge', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('webauthn_challenges_pk', ['binding_hash', 'purpose'])
    .execute();
  await db.schema.createIndex('webauthn_challenges_expires_idx').on('webauthn_challenges').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['webauthn_challenges', 'pending_sign_ins', 'passkeys', 'recovery_codes', 'totp_credentials']) {
    await db.schema.dropTable(table).execute();
  }
}
