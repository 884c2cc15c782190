import { actorOfUser, type SignedInUser } from '../../features/accounts/index.js';
import { getTag, type TagView } from '../../features/tags/index.js';
import { ApiError, notFound } from '../../errors.js';
import type { ScreenContext } from '../screen.js';

/**
 * The signed-in user's tag named in a dashboard address (id or short id). The API answers 403
 * for a tag of someone else; the dashboard answers exactly as for a tag that does not exist
 * (404), so its pages reveal nothing about other people's tags.
 */
export async function userTag(context: ScreenContext, user: SignedInUser, id: string): Promise<TagView> {
  try {
    return await getTag(context, actorOfUser(user), { id });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'forbidden') throw notFound('Tag');
    throw error;
  }
}
