import { LogController, type FastifyLoggerOptions, type FastifyReply, type FastifyRequest } from 'fastify';
import { maskIp } from '../lib/ip.js';

/**
 * JSON logs with the request id. Requests are logged by method, path and masked address only:
 * headers (keys, cookies), query strings and bodies never reach the log.
 */
export function loggerOptions(level: string): FastifyLoggerOptions & { redact: { paths: string[]; censor: string } } {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', 'res.headers["set-cookie"]'],
      censor: '[redacted]',
    },
    serializers: {
      req(request: { method: string; url: string; ip?: string }) {
        return { method: request.method, path: request.url.split('?')[0], ip: maskIp(request.ip) };
      },
      res(reply: { statusCode: number }) {
        return { status: reply.statusCode };
      },
    },
  };
}

/** One log line per request, when it completes; the request id is logged as `request_id`. */
export class RequestLogController extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'request_id' });
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const fields = { req: request, res: reply, response_time_ms: Math.round(reply.elapsedTime) };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}
