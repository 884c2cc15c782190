import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignedInUser } from '../../features/accounts/index.js';
import { html, pageContext, type ScreenContext } from '../screen.js';
import { renderConfirm, type Confirmation } from './confirm.js';

/**
 * The confirmation step of a destructive POST that came without `confirmed=yes` (a browser
 * without scripts): a page asking again, whose form posts to the same action, confirmed.
 * `section` is the page's nav entry.
 */
export function askFirst(
  context: ScreenContext,
  request: FastifyRequest,
  reply: FastifyReply,
  user: SignedInUser,
  section: string,
  confirmation: Confirmation,
): FastifyReply {
  return html(reply, 200, renderConfirm({ ...pageContext(context, request), path: section, user }, confirmation));
}
