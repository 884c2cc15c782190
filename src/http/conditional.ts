/**
 * True when an If-None-Match header matches `etag` (RFC 9110 §13.1.2): a list of entity tags,
 * compared weakly (W/ ignored), or `*`.
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const wanted = etag.replace(/^W\//, '');
  return header.split(',').some((part) => {
    const tag = part.trim();
    return tag === '*' || tag.replace(/^W\//, '') === wanted;
  });
}
