import { csrfFor, html, pageContext, requireUser, type Screen } from '../screen.js';
import { renderHome } from '../views/home.js';
import { renderSetup } from '../views/sign-in.js';

/** /dashboard: the first-run setup while there is no account, else the signed-in home. */
export const homeScreen: Screen = (app, context) => {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    if (!(await context.isSetUp())) return html(reply, 200, renderSetup({ csrf: csrfFor(context, request) }));
    const user = requireUser(request, reply);
    if (!user) return reply;
    return html(reply, 200, renderHome({ ...pageContext(context, request), user }, new URL(context.config.publicBaseUrl).origin));
  });
};
