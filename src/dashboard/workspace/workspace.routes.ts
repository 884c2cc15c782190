import { csrfFor, field, html, seeOther, type Screen } from '../screen.js';
import { renderMessage } from '../components/message.js';
import { parseWorkspace, rememberWorkspace, workspaceValue } from './workspaces.js';

/** Sections whose lists belong to a workspace: switching goes back to the section's list. */
const SECTIONS = new Set(['tags', 'folders', 'analytics', 'webhooks', 'keys', 'organizations', 'account', 'admin']);

/** Where to go after switching: the list of the section the person was in, else Home. */
function sectionOf(path: string): string {
  const section = /^\/dashboard\/([a-z]+)/.exec(path)?.[1];
  return section && SECTIONS.has(section) ? `/dashboard/${section}` : '/dashboard';
}

/**
 * POST /dashboard/workspace: what the dashboard acts for from the next page on. A value the
 * user may not choose (another organization, a forged value) is refused with a 400 page.
 */
export const workspaceScreen: Screen = (app, context) => {
  app.post('/workspace', { schema: { hide: true } }, async (request, reply) => {
    const value = field(request.body, 'workspace');
    const workspace = parseWorkspace(value, request.dashboard.workspaces?.organizations ?? []);
    if (workspaceValue(workspace) !== value) {
      return html(
        reply,
        400,
        renderMessage(csrfFor(context, request), 'Workspace not available', 'Go back and choose one of the workspaces offered.'),
      );
    }
    rememberWorkspace(reply, context.secure, workspace);
    return seeOther(reply, sectionOf(field(request.body, 'return')));
  });
};
