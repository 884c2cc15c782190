import { actorOfUser } from '../../features/accounts/index.js';
import { checkShareFields, createShare, deleteShare, listShares, type ShareInput } from '../../features/shares/index.js';
import { askFirst } from '../components/ask-first.js';
import { field, html, isConfirmed, pageContext, readOwn, seeOther, signedInUser, submitForm, type Screen } from '../screen.js';
import { tagPath } from '../tags/tag-header.js';
import { userTag } from '../tags/user-tag.js';
import { renderSharePage, revokePath, SHARE_LIFETIMES } from './share-card.js';

/** What the tag's analytics page says after a change of its share links (its `done`). */
export const SHARE_NOTICES: Record<string, string> = {
  shared: 'Share link created. Copy it and send it to whoever should see this report.',
  revoked: 'Share link revoked. Whoever has it sees “Page not found” from now on.',
};

const DAY_MS = 86_400_000;

/**
 * The Share card's forms (share-card.tsx), on the tag's analytics page: create a link, revoke
 * one (confirmed first, by dashboard.js or, without scripts, a confirmation page). Both go back
 * to the analytics page, at the card; a refused form is answered with the card alone.
 */
export const sharesScreen: Screen = (app, context) => {
  app.post<{ Params: { id: string } }>('/tags/:id/analytics/shares', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const actor = actorOfUser(user);
    const tag = await userTag(context, user, request.params.id);
    const values = { expires: field(request.body, 'expires') || 'never' };
    const days = SHARE_LIFETIMES.some((choice) => choice.value === values.expires) ? values.expires : undefined;
    const own: Record<string, string> = days ? {} : { expires: 'Choose when the link expires.' };
    const password = field(request.body, 'password');
    const input: ShareInput = {
      expires_at:
        days === undefined || days === 'never' ? null : new Date(context.clock.now().getTime() + Number(days) * DAY_MS).toISOString(),
      password: password === '' ? null : password,
    };
    const { errors } = await submitForm({
      fields: { password: 'password', expires_at: 'expires' },
      own,
      check: () => checkShareFields(context, input),
      save: () => createShare(context, actor, { id: tag.id, ...input }),
    });
    if (!errors) return seeOther(reply, `${tagPath(tag, 'analytics')}?done=shared#share`);
    const view = { ...pageContext(context, request), user };
    const shares = await listShares(context, actor, { id: tag.id });
    return html(reply, 400, renderSharePage(view, tag, { shares, form: { values, errors }, now: context.clock.now().toISOString() }));
  });

  app.post<{ Params: { id: string; shareId: string } }>(
    '/tags/:id/analytics/shares/:shareId/revoke',
    { schema: { hide: true } },
    async (request, reply) => {
      const user = signedInUser(request);
      const tag = await userTag(context, user, request.params.id);
      const { shareId } = request.params;
      if (isConfirmed(request.body)) {
        await readOwn(() => deleteShare(context, actorOfUser(user), { id: tag.id, share_id: shareId }));
        return seeOther(reply, `${tagPath(tag, 'analytics')}?done=revoked#share`);
      }
      return askFirst(context, request, reply, user, tagPath(tag, 'analytics'), {
        title: 'Revoke this share link?',
        text: `Whoever has the link to the report of “${tag.title}” sees “Page not found” from now on. This cannot be undone: a new link is a new address.`,
        action: revokePath(tag, shareId),
        button: 'Revoke',
        cancel: `${tagPath(tag, 'analytics')}#share`,
      });
    },
  );
};
