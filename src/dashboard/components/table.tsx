import type { ComponentChildren } from 'preact';

/**
 * A table of records: column headings, then rows whose cells carry `data-label` (their
 * heading) so that narrow screens show each row as a card of labelled facts (narrow.css).
 * Wider than the screen, it scrolls sideways in its wrapper: a region named `label` that takes
 * the focus, so that a keyboard scrolls it with the arrow keys too (WCAG 2.1.1).
 */
export function DataTable({ label, headings, children }: { label: string; headings: readonly string[]; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={label} tabindex={0}>
      <table class="data-table">
        <thead>
          <tr>
            {headings.map((heading) => (
              <th key={heading} scope="col">
                {heading}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A stored time as `2026-11-25` over `10:37 UTC` (two short lines fit a table column). */
export function When({ at }: { at: string | null }) {
  if (!at) return <span class="muted">Never</span>;
  return (
    <time datetime={at} class="when">
      <span>{at.slice(0, 10)}</span> <span class="muted">{`${at.slice(11, 16)} UTC`}</span>
    </time>
  );
}

/** A count as people read it: 1,234 (the same on every page, whatever the server's locale). */
export function formatNumber(n: number): string {
  return n.toLocaleString('en-US');
}

/** An address with its query (its empty parameters kept; no "?" when there are none). */
export function withQuery(path: string, query: Record<string, string>): string {
  const search = new URLSearchParams(query).toString();
  return search ? `${path}?${search}` : path;
}

/**
 * "1–50 of 1,000" and links to the previous and next pages (`?page=N`); nothing when one page
 * holds all. `path` may carry a query of its own (a filter), which the links keep.
 */
export function Pager({
  page,
  perPage,
  total,
  path,
  label,
}: {
  page: number;
  perPage: number;
  total: number;
  path: string;
  label: string;
}) {
  if (total <= perPage && page === 1) return null;
  const first = Math.min(total, (page - 1) * perPage + 1);
  const last = Math.min(total, page * perPage);
  const pageLink = (n: number) => `${path}${path.includes('?') ? '&' : '?'}page=${n}`;
  return (
    <nav class="pager" aria-label={label}>
      <span class="muted">{`${formatNumber(first)}–${formatNumber(last)} of ${formatNumber(total)}`}</span>
      {page > 1 && (
        <a class="button button-quiet" href={pageLink(page - 1)} rel="prev">
          Previous
        </a>
      )}
      {last < total && (
        <a class="button button-quiet" href={pageLink(page + 1)} rel="next">
          Next
        </a>
      )}
    </nav>
  );
}
