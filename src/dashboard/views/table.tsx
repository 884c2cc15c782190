import type { ComponentChildren } from 'preact';

/**
 * A table of records: column headings, then rows whose cells carry `data-label` (their
 * heading) so that narrow screens show each row as a card of labelled facts (dashboard.css).
 */
export function DataTable({ headings, children }: { headings: readonly string[]; children: ComponentChildren }) {
  return (
    <div class="table-wrap">
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
