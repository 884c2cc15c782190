import type { TagView } from '../../features/tags/index.js';
import { Tabs } from '../components/tabs.js';
import { StateBadge } from './tag-status.js';
import type { UserTag } from './user-tag.js';

/** The sections of one tag, each a page of its own under /dashboard/tags/{id}. */
export const TAG_SECTIONS = [
  { slug: '', label: 'Overview' },
  { slug: 'edit', label: 'Edit' },
  { slug: 'files', label: 'Files' },
  { slug: 'analytics', label: 'Analytics' },
  { slug: 'qr', label: 'QR code' },
] as const;

export type TagSection = (typeof TAG_SECTIONS)[number]['slug'];

export function tagPath(tag: Pick<TagView, 'id'>, section: TagSection = ''): string {
  const base = `/dashboard/tags/${encodeURIComponent(tag.id)}`;
  return section ? `${base}/${section}` : base;
}

/**
 * The head of every page of a tag: breadcrumb, title, the state of its page (and whether a
 * password guards it), its public address, a preview of the page in any state (the API's
 * preview_url: never counted), and the section tabs.
 */
export function TagHeader({ tag, current }: { tag: UserTag; current: TagSection }) {
  return (
    <header class="tag-header">
      <p class="breadcrumb">
        <a href="/dashboard/tags">Tags</a>
      </p>
      <div class="tag-title">
        <h1>{tag.title}</h1>
        <p class="tag-states">
          <StateBadge state={tag.state} locked={false} publishAt={tag.publish_at} />
          {tag.password_protected && <span class="state state-locked">Password</span>}
        </p>
      </div>
      <p class="tag-address">
        <a href={tag.url} target="_blank" rel="noopener">
          {tag.url}
        </a>
        <a class="button button-quiet tag-preview-link" href={tag.preview_url} target="_blank" rel="noopener">
          Preview<span class="visually-hidden"> the page in any state</span>
        </a>
      </p>
      <Tabs
        label="Tag"
        items={TAG_SECTIONS.map((section) => ({ href: tagPath(tag, section.slug), label: section.label }))}
        current={tagPath(tag, current)}
      />
    </header>
  );
}
