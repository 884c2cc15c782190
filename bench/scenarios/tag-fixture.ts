import type { Account } from '../lib/data.js';

export interface BenchTag {
  id: string;
  shortId: string;
  /** The owner's API key, for `Authorization: Bearer`. */
  key: string;
}

/** The body of a tag with content like a real page: a few paragraphs, a heading, a callout. */
export function pageBody(title = 'Conference room B — equipment and booking') {
  return {
    title,
    content: [
      {
        type: 'text',
        content:
          'This room seats twelve and has a ceiling microphone, a 75-inch display and a document camera. ' +
          'Book it through the shared calendar; meetings over two hours need approval from facilities.',
      },
      { type: 'heading', content: 'Connecting a laptop', level: 2 },
      {
        type: 'text',
        content:
          'Use the HDMI or USB-C cable on the table; the display switches input on its own. For video calls, ' +
          'select "Room B Conference" as the camera and microphone. The remote is in the drawer under the display.',
      },
      {
        type: 'callout',
        content:
          'Please switch the display off and leave the cables on the table when you go. Report faults to facilities, extension 4410.',
        style: 'warning',
      },
    ],
  };
}

/**
 * A public tag with content like a real page, made through the API as a client would. Each
 * scenario makes its own so any one runs alone.
 */
export async function createBenchTag(
  {
    baseUrl,
    createAccount,
  }: {
    baseUrl: string;
    createAccount(plan?: 'pro' | 'enterprise'): Promise<Account>;
  },
  /** More fields of the create body: a password, a theme… */
  extra: Record<string, unknown> = {},
): Promise<BenchTag> {
  const account = await createAccount('enterprise');
  const response = await fetch(new URL('/v1/tags', baseUrl), {
    method: 'POST',
    headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...pageBody(), ...extra }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST /v1/tags answered ${response.status}: ${text.slice(0, 500)}`);
  const { data } = JSON.parse(text) as { data: { id: string; short_id: string } };
  return { id: data.id, shortId: data.short_id, key: account.key };
}
