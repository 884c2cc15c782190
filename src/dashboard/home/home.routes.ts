import { actorOfUser } from '../../features/accounts/index.js';
import { listTags } from '../../features/tags/index.js';
import { csrfFor, html, pageContext, requireUser, type Screen } from '../screen.js';
import { renderHome } from './home.js';
import { renderSetup } from '../auth/sign-in.js';

/** Tags the home page lists: a glance, the Tags page has them all. */
const RECENT_TAGS = 5;

/** /dashboard: the first-run setup while there is no account, else the signed-in home. */
export const homeScreen: Screen = (app, context) => {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    if (!(await context.isSetUp())) return html(reply, 200, renderSetup({ csrf: csrfFor(context, request) }));
    const user = requireUser(request, reply);
    if (!user) return reply;
    const recent = await listTags(context, actorOfUser(user), { sort: 'updated', order: 'desc', limit: RECENT_TAGS, offset: 0 });
    const origin = new URL(context.config.publicBaseUrl).origin;
    return html(reply, 200, renderHome({ ...pageContext(context, request), user }, { origin, recent }));
  });
};
