import { actorOfUser } from '../../features/accounts/index.js';
import { listTags } from '../../features/tags/index.js';
import { html, pageContext, signedInUser, type Screen } from '../screen.js';
import { renderHome } from './home.js';

/** Tags the home page lists: a glance, the Tags page has them all. */
const RECENT_TAGS = 5;

/** /dashboard: the signed-in home (a signed-out browser gets the first-run setup here while there is no account: signedOut). */
export const homeScreen: Screen = (app, context) => {
  app.get('/', { schema: { hide: true }, config: { signedOut: 'first-run' } }, async (request, reply) => {
    const user = signedInUser(request);
    const recent = await listTags(context, actorOfUser(user), { sort: 'updated', order: 'desc', limit: RECENT_TAGS, offset: 0 });
    const origin = new URL(context.config.publicBaseUrl).origin;
    return html(reply, 200, renderHome({ ...pageContext(context, request), user }, { origin, recent }));
  });
};
