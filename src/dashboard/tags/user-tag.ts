import { actorOfUser, type SignedInUser } from '../../features/accounts/index.js';
import { getTag, pageStates, type PageState, type TagRead } from '../../features/tags/index.js';
import { readOwn, type ScreenContext } from '../screen.js';

/** A tag as its pages show it: as the API reads it, with the state of its public page now. */
export type UserTag = TagRead & { state: PageState };

/** The signed-in user's tag named in a dashboard address (id or short id); another user's answers 404. */
export async function userTag(context: ScreenContext, user: SignedInUser, id: string): Promise<UserTag> {
  const tag = await readOwn(() => getTag(context, actorOfUser(user), { id }));
  const states = await pageStates(context, [tag]);
  return { ...tag, state: states.get(tag.id)! };
}
