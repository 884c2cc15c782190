import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { actorOfUser, administers, type SignedInUser } from '../../features/accounts/index.js';
import { FAVICON_PATH } from '../../features/pages/index.js';
import { assetPath } from '../assets.js';
import { CsrfField } from './forms.js';
import { workspaceValue, type Workspaces } from '../workspace/workspaces.js';
import { ROLE_DESCRIPTIONS, ROLE_LABELS } from './roles.js';

/** htmx may not inject its indicator <style> (the CSP forbids inline styles) nor evaluate code. */
const HTMX_CONFIG = JSON.stringify({ includeIndicatorStyles: false, allowEval: false, allowScriptTags: false });

/** Every dashboard page that exists, in nav order; a new screen adds its entry here. */
export const NAV_ITEMS = [
  { href: '/dashboard', label: 'Home' },
  { href: '/dashboard/tags', label: 'Tags' },
  { href: '/dashboard/analytics', label: 'Analytics' },
  { href: '/dashboard/webhooks', label: 'Webhooks', needs: 'webhooks:read' },
  { href: '/dashboard/keys', label: 'API Keys' },
  { href: '/dashboard/organizations', label: 'Organizations' },
  { href: '/dashboard/audit-log', label: 'Audit log', needs: 'audit:read' },
] as const;

/** The account page is reached from the header's email (or "Account" on phones), not the nav. */
const ACCOUNT_HREF = '/dashboard/account';
/** The instance owner's Admin area (admin/admin.routes.ts): in the owner's nav only, last. */
const ADMIN_NAV_ITEM = { href: '/dashboard/admin', label: 'Admin' } as const;

/** The nav of a user in their workspace: a page their role there may not reach (`needs`) is left out. */
function navItemsOf(user: SignedInUser) {
  const { permissions } = actorOfUser(user);
  const items = NAV_ITEMS.filter((item) => !('needs' in item) || permissions.includes(item.needs));
  return user.isOwner ? [...items, ADMIN_NAV_ITEM] : items;
}

export interface PageContext {
  /** The form token of this browser (see security.ts); every form and htmx request sends it. */
  csrf: string;
  user?: SignedInUser;
  /** The request's path, to mark the current nav item. */
  path: string;
  /** The signed-in user's workspaces (the switcher); absent on pages outside the signed-in area. */
  workspaces?: Workspaces;
}

interface DocumentProps {
  title: string;
  csrf: string;
  bodyClass: string;
  /** Scripts of this page beyond htmx and dashboard.js: asset names (see assets.ts). */
  scripts?: string[];
  children: ComponentChildren;
}

function Document({ title, csrf, bodyClass, scripts = [], children }: DocumentProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="htmx-config" content={HTMX_CONFIG} />
        <title>{`${title} · tagsvc`}</title>
        <link rel="icon" href={FAVICON_PATH} type="image/svg+xml" />
        <link rel="stylesheet" href={assetPath('dashboard.css')} />
        <script src={assetPath('htmx.min.js')} defer></script>
        <script src={assetPath('dashboard.js')} defer></script>
        {scripts.map((name) => (
          <script key={name} src={assetPath(name)} defer></script>
        ))}
      </head>
      <body class={bodyClass} hx-headers={JSON.stringify({ 'x-csrf-token': csrf })}>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        {children}
      </body>
    </html>
  );
}

function Brand() {
  return (
    <a class="brand" href="/dashboard">
      <span class="brand-mark" aria-hidden="true"></span>
      tagsvc
    </a>
  );
}

export function PlanBadge({ plan }: { plan: string }) {
  return <span class={`badge badge-${plan}`}>{plan[0]!.toUpperCase() + plan.slice(1)}</span>;
}

/** The signed-in account's email and plan, as a list of facts. */
export function AccountFacts({ user, children }: { user: SignedInUser; children?: ComponentChildren }) {
  return (
    <dl class="facts">
      <div>
        <dt>Email</dt>
        <dd>{user.email}</dd>
      </div>
      <div>
        <dt>Plan</dt>
        <dd>
          <PlanBadge plan={user.plan} />
        </dd>
      </div>
      {children}
    </dl>
  );
}

/** The nav item of a page: its own, or the section it is under (an organization's page). */
function isCurrent(href: string, path: string): boolean {
  return path === href || (href !== '/dashboard' && path.startsWith(`${href}/`));
}

function Nav({ path, user }: { path: string; user: SignedInUser }) {
  return (
    <nav class="nav" aria-label="Dashboard">
      <ul>
        {navItemsOf(user).map((item) => (
          <li key={item.href}>
            <a href={item.href} aria-current={isCurrent(item.href, path) ? 'page' : undefined}>
              {item.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * What the pages act for: the user's own data or an organization's, live or test (a POST that
 * sets a cookie; dashboard.js sends it as soon as the choice changes). Test data is flagged.
 */
function WorkspaceBar({ csrf, path, workspaces }: { csrf: string; path: string; workspaces: Workspaces }) {
  const { current, organizations } = workspaces;
  const option = (environment: 'live' | 'test', org: { id: string; name: string } | null) => {
    const value = workspaceValue({ environment, organization: org });
    return (
      <option key={value} value={value} selected={value === workspaceValue(current)}>
        {org ? org.name : 'Personal'}
        {environment === 'test' ? ' (test data)' : ''}
      </option>
    );
  };
  const test = current.environment === 'test';
  return (
    <div class={test ? 'workspace-bar workspace-bar-test' : 'workspace-bar'}>
      <div class="workspace-bar-inner">
        <form method="post" action="/dashboard/workspace" class="workspace-switch" data-autosubmit="">
          <CsrfField token={csrf} />
          <input type="hidden" name="return" value={path} />
          <label for="workspace">Workspace</label>
          <select id="workspace" name="workspace">
            <optgroup label="Live data">
              {option('live', null)}
              {organizations.map((org) => option('live', org))}
            </optgroup>
            <optgroup label="Test data">
              {option('test', null)}
              {organizations.map((org) => option('test', org))}
            </optgroup>
          </select>
          <button type="submit" class="button button-quiet" data-autosubmit-button="">
            Switch
          </button>
        </form>
        {test && (
          <p class="workspace-note">
            Test data: what you do here reaches only test keys’ data, never live pages. Test tags are deleted {workspaces.testDataDays} days
            after they are made.
          </p>
        )}
        {current.organization && !administers(current.organization.role) && (
          <p class="workspace-note">
            You are {current.organization.role === 'editor' ? 'an' : 'a'} {ROLE_LABELS[current.organization.role].toLowerCase()} in{' '}
            {current.organization.name}: {ROLE_DESCRIPTIONS[current.organization.role]}
          </p>
        )}
      </div>
    </div>
  );
}

function SignOut({ csrf }: { csrf: string }) {
  return (
    <form method="post" action="/dashboard/logout" class="sign-out">
      <CsrfField token={csrf} />
      <button type="submit" class="button button-quiet">
        Sign out
      </button>
    </form>
  );
}

/** A page of the signed-in dashboard: header with nav, account and Sign out, then the content. */
export function renderAppPage(
  context: PageContext & { user: SignedInUser },
  title: string,
  content: ComponentChildren,
  options: { scripts?: string[] } = {},
): string {
  return page(
    <Document title={title} csrf={context.csrf} bodyClass="app" scripts={options.scripts}>
      <header class="topbar">
        <div class="topbar-inner">
          <Brand />
          <Nav path={context.path} user={context.user} />
          <div class="account">
            <a
              class="account-link"
              href={ACCOUNT_HREF}
              aria-label={`Account: ${context.user.email}`}
              aria-current={isCurrent(ACCOUNT_HREF, context.path) ? 'page' : undefined}
            >
              <span class="account-email">{context.user.email}</span>
              <span class="account-short">Account</span>
            </a>
            <PlanBadge plan={context.user.plan} />
            <SignOut csrf={context.csrf} />
          </div>
        </div>
      </header>
      {context.workspaces && <WorkspaceBar csrf={context.csrf} path={context.path} workspaces={context.workspaces} />}
      <main id="main" class="content" tabindex={-1}>
        {content}
      </main>
    </Document>,
  );
}

/** A page outside the signed-in area (sign-in, setup, sign-up, errors): one centred card. */
export function renderCardPage(
  context: { csrf: string },
  title: string,
  content: ComponentChildren,
  options: { scripts?: string[] } = {},
): string {
  return page(
    <Document title={title} csrf={context.csrf} bodyClass="solo" scripts={options.scripts}>
      <main id="main" class="solo-main" tabindex={-1}>
        <div class="solo-brand">
          <Brand />
        </div>
        <div class="card solo-card">{content}</div>
      </main>
    </Document>,
  );
}

function page(document: preact.JSX.Element): string {
  return `<!doctype html>${renderToString(document)}`;
}
