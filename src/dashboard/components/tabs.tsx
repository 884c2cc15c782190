/** Section tabs: links to the pages of one thing (a tag, the Admin area), the current one marked. */
export function Tabs({
  label,
  items,
  current,
}: {
  label: string;
  items: ReadonlyArray<{ href: string; label: string }>;
  /** The href of the page being shown. */
  current: string;
}) {
  return (
    <nav class="tabs" aria-label={label}>
      <ul>
        {items.map((item) => (
          <li key={item.href}>
            <a href={item.href} aria-current={item.href === current ? 'page' : undefined}>
              {item.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
