import { renderCardPage } from './layout.js';

/** A page that only says what happened and where to go next (refused form, unknown page, failure). */
export function renderMessage(
  csrf: string,
  title: string,
  text: string,
  link = { href: '/dashboard', label: 'Go to the dashboard' },
): string {
  return renderCardPage(
    { csrf },
    title,
    <>
      <h1>{title}</h1>
      <p class="lead">{text}</p>
      <p>
        <a class="button button-secondary" href={link.href}>
          {link.label}
        </a>
      </p>
    </>,
  );
}
