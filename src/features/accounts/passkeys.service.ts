import { createHash } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { ServiceContext } from '../../context.js';
import type { WebauthnChallengesTable } from '../../db/schema.js';
import { ApiError, validationError } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import * as accountsRepo from './accounts.repository.js';
import type { SignedInUser } from './sessions.js';
import { recordAudit } from '../audit/index.js';
import { transaction } from '../../db/transaction.js';
import { keepOneWhenRequired, newRecoveryCodes, ownAudit } from './two-factor.service.js';
import * as repo from './two-factor.repository.js';

/**
 * Passkeys (WebAuthn, @simplewebauthn/server): registered on the Account page, used as the
 * second factor after the password, or alone ("Sign in with a passkey", discoverable
 * credentials with user verification: the device and its PIN or biometrics are the two factors).
 *
 * The relying party is PUBLIC_BASE_URL: its host is the RP id, its origin the only origin
 * accepted. Each ceremony's challenge is kept server-side for the browser that asked (the hash
 * of the value its form token is bound to), one per purpose, and taken by the answer.
 */

const CHALLENGE_MS = 5 * 60_000;
const MAX_NAME = 64;
const MAX_PASSKEYS = 20;

type Purpose = WebauthnChallengesTable['purpose'];

function relyingParty(ctx: ServiceContext) {
  const url = new URL(ctx.config.publicBaseUrl);
  return { rpID: url.hostname, origin: url.origin };
}

/** What an answer must have been made for: this challenge, at PUBLIC_BASE_URL's origin and RP id. */
function expected(ctx: ServiceContext, challenge: string) {
  const { rpID, origin } = relyingParty(ctx);
  return { expectedChallenge: challenge, expectedOrigin: origin, expectedRPID: rpID };
}

const bindingHash = (binding: string) => createHash('sha256').update(`webauthn\n${binding}`).digest('hex');

async function keepChallenge(ctx: ServiceContext, binding: string, purpose: Purpose, challenge: string, userId: string | null) {
  const now = ctx.clock.now();
  await repo.putChallenge(
    ctx.db,
    {
      binding_hash: bindingHash(binding),
      purpose,
      challenge,
      user_id: userId,
      expires_at: new Date(now.getTime() + CHALLENGE_MS).toISOString(),
    },
    now.toISOString(),
  );
}

/** The browser's challenge for `purpose`, taken; undefined when it has none or it expired. */
async function takeChallenge(ctx: ServiceContext, binding: string, purpose: Purpose) {
  const row = await repo.takeChallenge(ctx.db, bindingHash(binding), purpose);
  return row && Date.parse(row.expires_at) > ctx.clock.now().getTime() ? row : undefined;
}

const transportsOf = (json: string): AuthenticatorTransportFuture[] => JSON.parse(json) as AuthenticatorTransportFuture[];
type AuthenticatorTransportFuture = NonNullable<RegistrationResponseJSON['response']['transports']>[number];

/** The options for the browser's navigator.credentials.create(): a discoverable credential, not one the user already has. */
export async function passkeyRegistrationOptions(
  ctx: ServiceContext,
  user: SignedInUser,
  binding: string,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await repo.listPasskeys(ctx.db, user.userId);
  if (existing.length >= MAX_PASSKEYS) throw new ApiError('forbidden', `an account has at most ${MAX_PASSKEYS} passkeys; remove one first`);
  const options = await generateRegistrationOptions({
    rpName: 'tagsvc',
    rpID: relyingParty(ctx).rpID,
    userName: user.email,
    userID: new TextEncoder().encode(user.userId),
    attestationType: 'none',
    excludeCredentials: existing.map((row) => ({ id: row.credential_id, transports: transportsOf(row.transports) })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  await keepChallenge(ctx, binding, 'register', options.challenge, user.userId);
  return options;
}

/** Checks a passkey's name: what the list shows it by. */
function passkeyName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw validationError('name', 'Give the passkey a name, such as the device it is on');
  if ([...trimmed].length > MAX_NAME) throw validationError('name', `A passkey's name is at most ${MAX_NAME} characters`);
  return trimmed;
}

function parsed<T>(json: string): T | undefined {
  try {
    return JSON.parse(json) as T;
  } catch {
    return undefined;
  }
}

const NOT_VERIFIED = 'The passkey could not be verified. Try again';

/** Saves the passkey the browser created with the options above, under `name`. */
export async function addPasskey(
  ctx: ServiceContext,
  user: SignedInUser,
  binding: string,
  input: { name: string; response: string },
): Promise<PasskeyAdded> {
  const name = passkeyName(input.name);
  const challenge = await takeChallenge(ctx, binding, 'register');
  const response = parsed<RegistrationResponseJSON>(input.response);
  if (!challenge || challenge.user_id !== user.userId || !response) throw validationError('passkey', NOT_VERIFIED);
  const verified = await verifyRegistrationResponse({ response, ...expected(ctx, challenge.challenge) }).catch(() => undefined);
  if (!verified?.verified) throw validationError('passkey', NOT_VERIFIED);
  const { credential } = verified.registrationInfo;
  if (await repo.findPasskey(ctx.db, credential.id)) throw validationError('passkey', 'This passkey is already registered');
  const { actor, entry } = ownAudit(user, 'user.passkey_added', { passkey: name });
  return transaction(ctx.db, async (trx) => {
    await recordAudit(ctx, trx, actor, entry);
    // The first second factor brings the recovery codes (an authenticator app's come with it).
    const first = (await repo.countUnusedRecoveryCodes(trx, user.userId)) === 0 && !(await repo.secondFactorsOf(trx, user.userId)).totp;
    await repo.insertPasskey(trx, {
      credential_id: credential.id,
      user_id: user.userId,
      name,
      public_key: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: JSON.stringify(credential.transports ?? []),
      created_at: isoNow(ctx.clock),
      last_used_at: null,
    });
    return { id: credential.id, name, recoveryCodes: first ? await newRecoveryCodes({ ...ctx, db: trx }, user.userId) : undefined };
  });
}

export interface PasskeyAdded {
  id: string;
  name: string;
  /** The ten recovery codes made with the user's first second factor, to show once. */
  recoveryCodes?: string[];
}

/** Removes one of the user's passkeys (not the last second factor while two factors are required). */
export async function removePasskey(ctx: ServiceContext, user: SignedInUser, input: { id: string }): Promise<{ name: string }> {
  const row = await repo.findPasskey(ctx.db, input.id);
  if (!row || row.user_id !== user.userId) throw new ApiError('not_found', 'Passkey not found');
  await keepOneWhenRequired(ctx, user.userId, 'passkey');
  const { actor, entry } = ownAudit(user, 'user.passkey_removed', { passkey: row.name });
  await transaction(ctx.db, async (trx) => {
    await recordAudit(ctx, trx, actor, entry);
    // Removed meanwhile (another tab): nothing changed, and no entry says it did.
    if (!(await repo.deletePasskey(trx, user.userId, input.id))) throw new ApiError('not_found', 'Passkey not found');
  });
  return { name: row.name };
}

/**
 * The options for navigator.credentials.get(): for the second factor, the pending user's
 * passkeys; for a passwordless sign-in, none named (the authenticator offers its discoverable
 * ones), with user verification required.
 */
export async function passkeySignInOptions(
  ctx: ServiceContext,
  binding: string,
  pendingUserId: string | undefined,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const allow = pendingUserId === undefined ? [] : await repo.listPasskeys(ctx.db, pendingUserId);
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(ctx).rpID,
    allowCredentials: allow.map((row) => ({ id: row.credential_id, transports: transportsOf(row.transports) })),
    userVerification: pendingUserId === undefined ? 'required' : 'preferred',
  });
  await keepChallenge(
    ctx,
    binding,
    pendingUserId === undefined ? 'passwordless' : 'second-factor',
    options.challenge,
    pendingUserId ?? null,
  );
  return options;
}

/**
 * The user a passkey's answer signs in: for the second factor only a passkey of the pending
 * user; passwordless, the owner of any passkey, verified by its device. Undefined when the
 * answer does not verify (unknown passkey, wrong challenge or origin, a replayed counter) or
 * its user is disabled.
 */
export async function verifyPasskeySignIn(
  ctx: ServiceContext,
  binding: string,
  pendingUserId: string | undefined,
  input: { response: string },
): Promise<string | undefined> {
  const purpose: Purpose = pendingUserId === undefined ? 'passwordless' : 'second-factor';
  const challenge = await takeChallenge(ctx, binding, purpose);
  const response = parsed<AuthenticationResponseJSON>(input.response);
  if (!challenge || challenge.user_id !== (pendingUserId ?? null) || typeof response?.id !== 'string') return undefined;
  const passkey = await repo.findPasskey(ctx.db, response.id);
  if (!passkey || (pendingUserId !== undefined && passkey.user_id !== pendingUserId)) return undefined;
  if ((await accountsRepo.findUserById(ctx.db, passkey.user_id))?.disabled !== 0) return undefined;
  const verified = await verifyAuthenticationResponse({
    response,
    ...expected(ctx, challenge.challenge),
    requireUserVerification: purpose === 'passwordless',
    credential: {
      id: passkey.credential_id,
      publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')),
      counter: passkey.counter,
      transports: transportsOf(passkey.transports),
    },
  }).catch(() => undefined);
  if (!verified?.verified) return undefined;
  if (!(await repo.recordPasskeyUse(ctx.db, passkey.credential_id, verified.authenticationInfo.newCounter, isoNow(ctx.clock))))
    return undefined;
  return passkey.user_id;
}
