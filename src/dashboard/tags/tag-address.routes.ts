import { actorOfUser } from '../../features/accounts/index.js';
import { checkAddress } from '../../features/tags/index.js';
import { html, queryParam, signedInUser, type Screen } from '../screen.js';
import { userTag } from './user-tag.js';
import { renderAddressCheck } from './tag-settings.js';

/** A longer text cannot be an address; the check says so without a look-up. */
const MAX_ADDRESS = 64;

/**
 * GET /dashboard/tags/address?short_id=…[&tag=…]: whether the address field's text can be
 * chosen (by the tag `tag`, another user's answering 404), as a fragment for the field's htmx
 * check: available, taken, or not allowed and why. It says only that: never which page holds
 * an address, nor whose (tags.checkAddress). Nothing for an empty field.
 */
export const tagAddressScreen: Screen = (app, context) => {
  // A fragment: once the session is over it answers 401, which htmx swaps in for nothing.
  const fragment = { schema: { hide: true }, config: { signedOut: 'fragment' as const } };
  app.get('/tags/address', fragment, async (request, reply) => {
    const user = signedInUser(request);
    const shortId = (queryParam(request, 'short_id') ?? '').trim();
    const tagId = queryParam(request, 'tag');
    const tag = tagId ? await userTag(context, user, tagId) : undefined;
    if (shortId === '') return html(reply, 200, '');
    if (shortId === tag?.short_id) return html(reply, 200, renderAddressCheck('current'));
    const check = await checkAddress(context, actorOfUser(user), { short_id: shortId.slice(0, MAX_ADDRESS + 1), tag_id: tag?.id });
    return html(reply, 200, renderAddressCheck(check.result));
  });
};
