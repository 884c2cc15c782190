import escapeHtml from 'escape-html';

/**
 * Every mail the service sends, as plain text and simple HTML (every value escaped). A
 * template takes its data and gives the subject, both bodies and the links it carries: the
 * links are what the log shows when no SMTP server is configured (mail.service.ts).
 */

/** One workspace's week in the weekly report: figures of the week, and of the week before when kept. */
export interface WeeklyWorkspace {
  name: string;
  views: number;
  visitors: number;
  topTags: readonly { title: string; views: number }[];
  /** The first day counted, when the plan keeps less than the whole week (Free keeps 7 days). */
  countedFrom?: string;
  /** The week before's figures; null when the plan does not keep that week. */
  previous: { views: number; visitors: number } | null;
}

export interface TemplateData {
  'password-reset': { link: string };
  'email-verification': { link: string };
  'weekly-report': { week: string; dashboardLink: string; accountLink: string; workspaces: readonly WeeklyWorkspace[] };
  invite: { link: string; organization: string; role: string; inviter: string };
}

export type TemplateName = keyof TemplateData;

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
  links: string[];
}

/** Plain paragraphs in a minimal, readable HTML document (mail clients ignore most CSS). */
function htmlDocument(paragraphs: readonly string[]): string {
  const body = paragraphs.join('\n');
  return `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1f2328;max-width:36rem">\n${body}\n</body></html>`;
}

const paragraph = (text: string) => `<p>${escapeHtml(text)}</p>`;
const button = (href: string, label: string) => `<p><a href="${escapeHtml(href)}">${escapeHtml(label)}</a></p>`;

/** A mail that asks the reader to follow one link: a lead, the link, then what to know. */
function linkMail(subject: string, lead: string, label: string, link: string, after: readonly string[]): RenderedMail {
  return {
    subject,
    text: [lead, '', link, '', ...after.flatMap((line) => [line, ''])].join('\n').trimEnd() + '\n',
    html: htmlDocument([paragraph(lead), button(link, label), ...after.map(paragraph)]),
    links: [link],
  };
}

/** `+12 %`, `−5 %`, `new` (nothing the week before) or `no change`. */
function changeOf(now: number, before: number): string {
  if (now === before) return 'no change';
  if (before === 0) return 'new';
  const percent = Math.round(((now - before) / before) * 100);
  return percent >= 0 ? `+${percent} %` : `−${Math.abs(percent)} %`;
}

const viewsOf = (count: number) => `${count} ${count === 1 ? 'view' : 'views'}`;

function figure(label: string, now: number, before: number | undefined): string {
  return before === undefined ? `${label}: ${now}` : `${label}: ${now} (${changeOf(now, before)}; ${before} the week before)`;
}

function weeklyLines(workspace: WeeklyWorkspace): string[] {
  const lines = [
    figure('Views', workspace.views, workspace.previous?.views),
    figure('Visitors', workspace.visitors, workspace.previous?.visitors),
  ];
  if (workspace.countedFrom) lines.push(`Counted from ${workspace.countedFrom}, the oldest day the plan keeps; no week before to compare.`);
  else if (!workspace.previous) lines.push('The plan does not keep the week before to compare.');
  if (workspace.topTags.length === 0) return [...lines, 'No tag was viewed.'];
  return [...lines, 'Top tags:', ...workspace.topTags.map((tag, index) => `${index + 1}. ${tag.title}: ${viewsOf(tag.views)}`)];
}

function weeklyHtml(workspace: WeeklyWorkspace): string {
  const lines = weeklyLines(workspace);
  const list = workspace.topTags.length === 0 ? [] : lines.splice(lines.indexOf('Top tags:'));
  const tags =
    list.length === 0
      ? ''
      : `<p>Top tags:</p><ol>${workspace.topTags.map((tag) => `<li>${escapeHtml(tag.title)}: ${viewsOf(tag.views)}</li>`).join('')}</ol>`;
  return `<h2 style="font-size:1.1rem">${escapeHtml(workspace.name)}</h2>${lines.map(paragraph).join('')}${tags}`;
}

const TEMPLATES: { [T in TemplateName]: (data: TemplateData[T]) => RenderedMail } = {
  'password-reset': ({ link }) =>
    linkMail('Reset your tagsvc password', 'Someone asked to reset the password of your tagsvc account.', 'Choose a new password', link, [
      'The link works once, for one hour. Setting a new password signs you out everywhere.',
      'If it was not you, ignore this mail: your password stays as it is.',
    ]),
  'email-verification': ({ link }) =>
    linkMail(
      'Confirm your email address for tagsvc',
      'Confirm that this is your address to finish setting up your tagsvc account.',
      'Confirm my address',
      link,
      [
        'Until you do, you can sign in but not create API keys. The link works once, for seven days.',
        'If you did not create an account, ignore this mail.',
      ],
    ),
  invite: ({ link, organization, role, inviter }) =>
    linkMail(
      `${inviter} invited you to ${organization} on tagsvc`,
      `${inviter} invited you to join ${organization} on tagsvc as ${/^[aeiou]/i.test(role) ? 'an' : 'a'} ${role}.`,
      'Accept the invitation',
      link,
      [
        'The link works for seven days. With no tagsvc account at this address yet, it lets you create one.',
        'If you did not expect this, ignore this mail: nothing happens until the link is followed.',
      ],
    ),
  'weekly-report': ({ week, dashboardLink, accountLink, workspaces }) => ({
    subject: `Your tagsvc week: ${week}`,
    text:
      [
        `Your tags in the week of ${week}, with the change from the week before.`,
        ...workspaces.flatMap((workspace) => ['', workspace.name, ...weeklyLines(workspace)]),
        '',
        `Open the dashboard: ${dashboardLink}`,
        `Stop these mails on your Account page: ${accountLink}`,
      ].join('\n') + '\n',
    html: htmlDocument([
      paragraph(`Your tags in the week of ${week}, with the change from the week before.`),
      ...workspaces.map(weeklyHtml),
      button(dashboardLink, 'Open the dashboard'),
      `<p style="color:#656d76">You get this mail because you asked for it. <a href="${escapeHtml(accountLink)}">Stop the weekly report</a>.</p>`,
    ]),
    links: [dashboardLink, accountLink],
  }),
};

export function renderMail<T extends TemplateName>(template: T, data: TemplateData[T]): RenderedMail {
  return TEMPLATES[template](data);
}
