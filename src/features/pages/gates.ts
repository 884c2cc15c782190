import escapeHtml from 'escape-html';
import { document } from './render.js';

/**
 * The pages a visitor gets instead of a tag's page (or of a shared report: its password form):
 * asked for its password, told it has expired. None carries anything of the tag (its title
 * included): they answer before the page is shown.
 */

export interface PasswordForm {
  /** Where the form posts: the page's unlock address. */
  action: string;
  /** A tag's page: sent back with the form, so the page shown after it is the one asked for (a scan stays a scan). */
  via?: 'page' | 'scan';
  /** What went wrong with the last try, if anything. */
  problem?: string;
}

export function passwordPage({ action, via, problem }: PasswordForm): string {
  const error = problem ? `<p class="form-error" id="password-error" role="alert">${escapeHtml(problem)}</p>` : '';
  const described = problem ? ' aria-describedby="password-error" aria-invalid="true"' : '';
  return document(
    'Password required',
    '<div class="gate"><h1>This page is protected</h1><p>Enter the password you were given to see it.</p>' +
      `<form method="post" action="${escapeHtml(action)}" class="gate-form">` +
      (via ? `<input type="hidden" name="via" value="${via}">` : '') +
      '<label for="password">Password</label>' +
      `<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="128" autofocus${described}>` +
      `${error}<button type="submit" class="button">Show the page</button></form></div>`,
    '<meta name="robots" content="noindex">',
  );
}

export const EXPIRED_PAGE = document(
  'No longer available',
  '<div class="not-found"><h1>No longer available</h1><p>This page has expired and is no longer available.</p></div>',
  '<meta name="robots" content="noindex">',
);
