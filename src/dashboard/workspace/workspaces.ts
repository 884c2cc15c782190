import type { FastifyReply } from 'fastify';
import { actorOfUser, listOrganizations, type SignedInUser, type Workspace } from '../../features/accounts/index.js';
import { cookieOptions, setCookie } from '../security.js';

/** The cookie holding the chosen workspace: `live:personal`, `test:org_…` and so on. */
export const WORKSPACE_COOKIE = 'tagsvc_workspace';

/** An organization the user may act for in the dashboard, with their role in it. */
export type WorkspaceOrganization = NonNullable<Workspace['organization']>;

/** The workspaces a page offers and the one it shows. */
export interface Workspaces {
  current: Workspace;
  organizations: readonly WorkspaceOrganization[];
  /** Days test data is kept: the sandbox purge deletes test tags made longer ago (SANDBOX_RETENTION_DAYS). */
  testDataDays: number;
}

/** Whether the page shows test data (the test workspace), which its copy must not call live. */
export const showsTestData = (workspaces: Workspaces | undefined): workspaces is Workspaces => workspaces?.current.environment === 'test';

export function workspaceValue(workspace: { environment: Workspace['environment']; organization: { id: string } | null }): string {
  return `${workspace.environment}:${workspace.organization?.id ?? 'personal'}`;
}

/**
 * The workspaces of a signed-in user: their own data and that of each organization they belong
 * to, each live or test; what they may do in one is their role's (ROLE_PERMISSIONS). `chosen` is
 * the cookie's value; one naming anything else (a former organization, a forged value) gives the
 * user's own live data.
 */
export async function workspacesOf(
  context: Parameters<typeof listOrganizations>[0],
  user: SignedInUser,
  chosen: string | undefined,
): Promise<Workspaces> {
  const memberships = await listOrganizations(context, actorOfUser(user));
  const organizations: WorkspaceOrganization[] = memberships.map(({ id, name, plan, role }) => ({ id, name, plan, role }));
  return { current: parseWorkspace(chosen, organizations), organizations, testDataDays: context.config.sandboxRetentionDays };
}

export function parseWorkspace(value: string | undefined, organizations: readonly WorkspaceOrganization[]): Workspace {
  const [environment, id] = (value ?? '').split(':');
  const organization = organizations.find((org) => org.id === id) ?? null;
  return {
    environment: environment === 'test' && (organization || id === 'personal') ? 'test' : 'live',
    organization,
  };
}

export function rememberWorkspace(reply: FastifyReply, secure: boolean, workspace: Workspace): void {
  // A year: the choice is a preference, checked against the user's organizations on every request.
  setCookie(reply, WORKSPACE_COOKIE, workspaceValue(workspace), cookieOptions(secure, 365 * 24 * 3600));
}
