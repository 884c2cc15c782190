import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { ApiError, problemsOf } from '../../errors.js';
import { actorOfUser, type SignedInUser } from '../../features/accounts/index.js';
import { auditLogCsv, listAuditLog, type AuditQuery } from '../../features/audit/index.js';
import { html, pageContext, pageParam, queryParam, readOwn, signedInUser, type Screen } from '../screen.js';
import { securityHeaders } from '../security.js';
import { renderAuditLog, type AuditFilter } from './audit.js';

/** Entries per page. */
const PER_PAGE = 50;
/** Longer than any email or key name: a longer filter cannot match. */
const MAX_FILTER = 320;

function filterOf(request: FastifyRequest): AuditFilter {
  const param = (name: string) => (queryParam(request, name) ?? '').trim().slice(0, MAX_FILTER);
  return {
    actor: param('actor'),
    action: param('action'),
    from: param('from'),
    to: param('to'),
    scope: param('scope') === 'instance' ? 'instance' : '',
  };
}

const queryOf = (filter: AuditFilter): AuditQuery => ({ ...filter, instance: filter.scope === 'instance' });

/** What the page shows, in its lead: the chosen workspace, or the whole instance. */
function showingOf(user: SignedInUser, filter: AuditFilter): string {
  if (filter.scope === 'instance') return 'every workspace of this instance, and to the instance itself';
  const organization = user.workspace?.organization;
  return organization ? `the organization ${organization.name}` : 'your own workspace and account';
}

/**
 * /dashboard/audit-log: the chosen workspace's log (an organization's for its owner and admins
 * only: anyone else gets the dashboard's 404, as the services refuse them), the whole
 * instance's for its owner, and its CSV download with the same filters.
 */
export const auditScreen: Screen = (app, context) => {
  app.get('/audit-log', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const filter = filterOf(request);
    const page = pageParam(request);
    const view = { ...pageContext(context, request), user };
    const paging = { page, perPage: PER_PAGE, total: 0 };
    try {
      const { total, entries } = await readOwn(() =>
        listAuditLog(context, actorOfUser(user), { ...queryOf(filter), limit: PER_PAGE, offset: (page - 1) * PER_PAGE }),
      );
      return html(
        reply,
        200,
        renderAuditLog(view, { entries, filter, paging: { ...paging, total }, errors: {}, showing: showingOf(user, filter) }),
      );
    } catch (error) {
      if (!(error instanceof ApiError) || (error.code !== 'validation_error' && error.code !== 'invalid_date_range')) throw error;
      const errors = Object.fromEntries(problemsOf(error).map((problem) => [problem.details.field ?? '', problem.message]));
      return html(reply, 400, renderAuditLog(view, { entries: [], filter, paging, errors, showing: showingOf(user, filter) }));
    }
  });

  app.get('/audit-log/export.csv', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const rows = await readOwn(() => auditLogCsv(context, actorOfUser(user), queryOf(filterOf(request))));
    return securityHeaders(reply)
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="audit-log.csv"')
      .send(Readable.from(rows));
  });
};
