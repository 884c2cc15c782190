import { Alert, CheckboxField, CsrfField, SubmitButton } from '../components/forms.js';
import { MailNotice } from '../auth/password-reset.js';

export interface WeeklyReportState {
  enabled: boolean;
  saved: boolean;
  mailConfigured: boolean;
}

/** The Account page's opt-in to the weekly report by mail. */
export function WeeklyReportCard({ csrf, state }: { csrf: string; state: WeeklyReportState }) {
  return (
    <section class="card" aria-labelledby="weekly-report-heading">
      <h2 id="weekly-report-heading">Weekly report</h2>
      <p>
        Every Monday morning, in your time zone, a mail with last week’s views, visitors and top tags of your own tags and of each
        organization you belong to, beside the week before.
      </p>
      {state.saved && <Alert kind="success">{state.enabled ? 'The weekly report is on.' : 'The weekly report is off.'}</Alert>}
      <MailNotice configured={state.mailConfigured} />
      <form method="post" action="/dashboard/account/weekly-report" class="stack">
        <CsrfField token={csrf} />
        <CheckboxField name="weekly_report" label="Mail me the weekly report" checked={state.enabled} />
        <SubmitButton>Save</SubmitButton>
      </form>
    </section>
  );
}
