import { actorOfUser, type SignedInUser } from '../../features/accounts/index.js';
import { getTag, type TagView } from '../../features/tags/index.js';
import { readOwn, type ScreenContext } from '../screen.js';

/** The signed-in user's tag named in a dashboard address (id or short id); another user's answers 404. */
export function userTag(context: ScreenContext, user: SignedInUser, id: string): Promise<TagView> {
  return readOwn(() => getTag(context, actorOfUser(user), { id }));
}
