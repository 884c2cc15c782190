import type { TagView } from '../../features/tags/index.js';
import { Tabs } from '../components/tabs.js';

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

/** The head of every page of a tag: breadcrumb, title, its public address, and the section tabs. */
export function TagHeader({ tag, current }: { tag: TagView; current: TagSection }) {
  return (
    <header class="tag-header">
      <p class="breadcrumb">
        <a href="/dashboard/tags">Tags</a>
      </p>
      <h1>{tag.title}</h1>
      <p class="tag-address">
        <a href={tag.url} target="_blank" rel="noopener">
          {tag.url}
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
