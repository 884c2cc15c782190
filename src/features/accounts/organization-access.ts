import type { Db } from '../../db/database.js';
import { ApiError, notFound, validationError } from '../../errors.js';
import { isOperator, type AccountActor } from './actor.js';
import * as repo from './accounts.repository.js';
import { administers } from './permissions.js';

/** Who may do what with an organization, and the address rule: shared by members and invites. */

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An address as accounts store it: trimmed and lower-cased; `validation_error` (field `email`) when it is none. */
export function normalizeEmail(email: string): string {
  const normalized = email.trim().toLowerCase();
  if (!EMAIL_PATTERN.test(normalized)) throw validationError('email', `"${email}" is not an email address`);
  return normalized;
}

/**
 * The organization, for an actor who is a member (`read`) or its owner or an admin
 * (`administer`): 404 to anyone outside it, as for one that does not exist; 403 to an editor or
 * viewer.
 */
export async function requireOrganization(db: Db, actor: AccountActor, organizationId: string, access: 'read' | 'administer') {
  const org = await repo.findOrganization(db, organizationId);
  if (!org) throw notFound(`Organization ${organizationId}`);
  if (isOperator(actor)) return org;
  const membership = await repo.findMembership(db, org.id, actor.userId);
  if (!membership) throw notFound(`Organization ${organizationId}`);
  if (access === 'administer' && !administers(membership.role)) {
    throw new ApiError('forbidden', 'only an owner or admin of the organization can do this');
  }
  return org;
}
