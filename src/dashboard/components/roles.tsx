import { GIVEN_ROLES } from '../../features/accounts/index.js';
import type { OrgRole } from '../../db/schema.js';

/** Organization roles in words: their names and what each may do (accounts' ROLE_PERMISSIONS and administers). */
export const ROLE_LABELS: Record<OrgRole, string> = { owner: 'Owner', admin: 'Admin', editor: 'Editor', viewer: 'Viewer' };

export const ROLE_DESCRIPTIONS: Record<OrgRole, string> = {
  owner: 'Everything, and hands the organization over.',
  admin: 'Everything but handing over: tags, files, analytics, webhooks, API keys and members.',
  editor: 'Creates and changes tags, folders and files, and reads analytics. No webhooks, API keys or members.',
  viewer: 'Reads tags, files and analytics. Changes nothing.',
};

/** The roles an owner or admin gives, as a select's options. */
export const ROLE_OPTIONS = GIVEN_ROLES.map((role) => ({ value: role, label: ROLE_LABELS[role] }));

export function RoleBadge({ role }: { role: OrgRole }) {
  return <span class={`badge badge-role-${role}`}>{ROLE_LABELS[role]}</span>;
}

/** The roles a member can be given, each with what it may do: read before choosing one. */
export function RoleGuide() {
  return (
    <dl class="role-guide">
      {GIVEN_ROLES.map((role) => (
        <div key={role}>
          <dt>{ROLE_LABELS[role]}</dt>
          <dd>{ROLE_DESCRIPTIONS[role]}</dd>
        </div>
      ))}
    </dl>
  );
}
