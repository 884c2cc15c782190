import { CsrfField } from './forms.js';
import { renderAppPage, type PageContext } from './layout.js';
import type { SignedInUser } from '../../features/accounts/index.js';

export interface Confirmation {
  title: string;
  text: string;
  /** Where the confirmed form posts (with confirmed=yes). */
  action: string;
  button: string;
  cancel: string;
  /** What the original form said beyond the confirmation, sent again with it. */
  fields?: Record<string, string>;
}

/** The confirmation step of a destructive action for a browser without scripts. */
export function renderConfirm(context: PageContext & { user: SignedInUser }, confirmation: Confirmation): string {
  return renderAppPage(
    context,
    confirmation.title,
    <section class="card confirm" aria-labelledby="confirm-heading">
      <h1 id="confirm-heading">{confirmation.title}</h1>
      <p>{confirmation.text}</p>
      <form method="post" action={confirmation.action} class="actions">
        <CsrfField token={context.csrf} />
        <input type="hidden" name="confirmed" value="yes" />
        {Object.entries(confirmation.fields ?? {}).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <button type="submit" class="button button-danger-solid">
          {confirmation.button}
        </button>
        <a class="button button-secondary" href={confirmation.cancel}>
          Cancel
        </a>
      </form>
    </section>,
  );
}
