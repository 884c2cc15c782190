import type { FastifyReply } from 'fastify';
import type { PreparedExport } from '../features/analytics/index.js';

/** Answers with a prepared analytics export as a file download, streamed: the API and the dashboard alike. */
export function sendExport(reply: FastifyReply, prepared: PreparedExport): FastifyReply {
  return reply.type(prepared.contentType).header('content-disposition', `attachment; filename="${prepared.filename}"`).send(prepared.body);
}
