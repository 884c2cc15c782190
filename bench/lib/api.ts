/** One JSON call to the service that must answer `expect`; returns the parsed `data`. */
export async function api<T>(
  baseUrl: string,
  key: string,
  method: string,
  path: string,
  options: { body?: unknown; expect?: number; timeoutMs?: number } = {},
): Promise<T> {
  const response = await fetch(new URL(path, baseUrl), {
    method,
    headers: { authorization: `Bearer ${key}`, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  const text = await response.text();
  const expect = options.expect ?? (method === 'POST' ? 201 : 200);
  if (response.status !== expect) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  return (JSON.parse(text) as { data: T }).data;
}

/** `YYYY-MM-DD` of the UTC day `offset` days from today. */
export function utcDay(offset = 0): string {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}
