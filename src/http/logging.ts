import { LogController, type FastifyBaseLogger, type FastifyLoggerOptions, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, Logger } from 'pino';
import { maskIp } from '../lib/ip.js';

/**
 * JSON logs with the request id. Requests are logged by method, path and masked address only:
 * headers (keys, cookies), query strings, bodies and the tokens of shared reports' addresses
 * never reach the log.
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
        return { method: request.method, path: loggedPath(request.url), ip: maskIp(request.ip) };
      },
      res(reply: { statusCode: number }) {
        return { status: reply.statusCode };
      },
    },
  };
}

/** Addresses whose next segment is a secret: a shared report's token (/stats/{token}/…). */
const SECRET_SEGMENT = /^(\/stats\/)[^/?]+/;

/** A request's path as logged: without its query string, and a secret in it redacted. */
function loggedPath(url: string): string {
  return url.split('?')[0]!.replace(SECRET_SEGMENT, '$1[redacted]');
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
    if (!writes(reply.log, error ? 'error' : 'info')) return;
    const fields = { req: request, res: reply, response_time_ms: Math.round(reply.elapsedTime) };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}

/** Whether `log` writes lines of `level`: pino's own check, on any logger that has it. */
function writes(log: FastifyBaseLogger, level: string): boolean {
  return (log as Partial<Pick<Logger, 'isLevelEnabled'>>).isLevelEnabled?.(level) ?? true;
}

/**
 * A request's logger, which makes its pino child (the request id's binding, serialized) only
 * when the request writes a line at an enabled level. At the default level a request writes
 * none, and making the child would cost every request for nothing (src/perf/README.md); a line
 * written goes through exactly the child pino would have made.
 */
class RequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): LevelWithSilentOrString {
    return (this.made ?? this.parent).level;
  }

  set level(level: LevelWithSilentOrString) {
    this.logger().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return writes(this.made ?? this.parent, level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.write('error', args);
  }

  warn(...args: unknown[]): void {
    this.write('warn', args);
  }

  info(...args: unknown[]): void {
    this.write('info', args);
  }

  debug(...args: unknown[]): void {
    this.write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.write('trace', args);
  }

  silent(): void {}

  private logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  private write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    const logger = this.logger();
    (logger[level] as (...args: unknown[]) => void).apply(logger, args);
  }
}

/**
 * Fastify's childLoggerFactory: every request's logger is a RequestLogger, unless its route sets
 * a level of its own (which the parent's level cannot answer for).
 */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (options.level !== undefined) return logger.child(bindings, options);
  return new RequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
