import type { FastifyReply, FastifyRequest } from 'fastify';
import { Value } from 'typebox/value';
import { actorOfUser, type SignedInUser } from '../../features/accounts/index.js';
import {
  normalizeColor,
  QR_MAX_SIZE,
  QR_MIN_SIZE,
  qrImage,
  recordQrGenerated,
  requireTag,
  scanUrl,
  type QrOptions,
  type TagRow,
} from '../../features/tags/index.js';
import { QrQuery } from '../../http/schemas/tags.js';
import { html, pageContext, readOwn, signedInUser, type Screen } from '../screen.js';
import { securityHeaders } from '../security.js';
import { renderTagQr, type QrFormValues } from './tag-qr.js';
import { userTag } from './user-tag.js';

/** The form's message for each option the API's schema refuses. */
const OPTION_ERRORS: Record<keyof QrOptions, string> = {
  size: `Enter a whole number of pixels from ${QR_MIN_SIZE} to ${QR_MAX_SIZE}.`,
  color: 'Choose a colour: 6 hexadecimal digits, like #1d1d1f.',
  background: 'Choose a colour: 6 hexadecimal digits, like #ffffff.',
  format: 'Choose PNG or SVG.',
};

type QrRequest = FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>;

/**
 * The options in the query (the names and rules of GET /v1/tags/{id}/qr, checked against its
 * schema), with the API's defaults for those absent. A colour may come with its '#' (what a
 * colour input sends) or without, as in the API.
 */
function readQrOptions(query: Record<string, string | undefined>): {
  values: QrFormValues;
  options?: QrOptions;
  errors: Record<string, string>;
} {
  const given = Object.fromEntries(
    (['format', 'size', 'color', 'background'] as const)
      .filter((name) => query[name] !== undefined && query[name] !== '')
      .map((name) => [name, query[name]!]),
  );
  const candidate = Value.Convert(QrQuery, Value.Default(QrQuery, given)) as Record<string, unknown>;
  const values: QrFormValues = {
    format: String(candidate.format),
    size: String(candidate.size),
    color: normalizeColor(String(candidate.color)),
    background: normalizeColor(String(candidate.background)),
  };
  const errors: Record<string, string> = {};
  for (const error of Value.Errors(QrQuery, candidate)) {
    const name = error.instancePath.slice(1) as keyof QrOptions;
    if (name in OPTION_ERRORS) errors[name] = OPTION_ERRORS[name];
  }
  if (Object.keys(errors).length > 0) return { values, errors };
  const options: QrOptions = {
    format: values.format as QrOptions['format'],
    size: Number(values.size),
    color: values.color,
    background: values.background,
  };
  return { values, options, errors };
}

/**
 * /dashboard/tags/{id}/qr: the tag's QR code (its scan address) with the options of the API,
 * a live preview and a download. Previews are not announced; a download is a QR generated
 * for use, so it emits qr.generated as the API's endpoint does.
 */
export const tagQrScreen: Screen = (app, context) => {
  const qrPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: SignedInUser,
    tag: TagRow,
    form: ReturnType<typeof readQrOptions>,
  ) =>
    html(
      reply,
      form.options ? 200 : 400,
      renderTagQr(
        { ...pageContext(context, request), user },
        // The tag as its header shows it (its page's state, its preview), read as the user.
        { tag: await userTag(context, user, tag.id), scanUrl: scanUrl(context.config, tag), ...form },
      ),
    );

  /** The tag, for its signed-in owner: another account's answers as a missing one (404). */
  const findTag = (user: SignedInUser, id: string) => readOwn(() => requireTag(context, actorOfUser(user), id));

  const sendImage = async (reply: FastifyReply, tag: TagRow, options: QrOptions) => {
    const image = await qrImage(scanUrl(context.config, tag), options);
    return securityHeaders(reply).type(image.contentType).send(image.body);
  };

  app.get('/tags/:id/qr', { schema: { hide: true } }, async (request: QrRequest, reply) => {
    const user = signedInUser(request);
    const tag = await findTag(user, request.params.id);
    return qrPage(request, reply, user, tag, readQrOptions(request.query));
  });

  app.get('/tags/:id/qr/image', { schema: { hide: true } }, async (request: QrRequest, reply) => {
    const user = signedInUser(request);
    const tag = await findTag(user, request.params.id);
    const { options } = readQrOptions(request.query);
    if (!options) return securityHeaders(reply).code(400).type('text/plain; charset=utf-8').send('Invalid QR options.');
    return sendImage(reply, tag, options);
  });

  app.get('/tags/:id/qr/download', { schema: { hide: true } }, async (request: QrRequest, reply) => {
    const user = signedInUser(request);
    const tag = await findTag(user, request.params.id);
    const form = readQrOptions(request.query);
    if (!form.options) return qrPage(request, reply, user, tag, form);
    const { options } = form;
    await recordQrGenerated(context, tag, options);
    reply.header('content-disposition', `attachment; filename="tag-${tag.short_id}-qr-${options.size}.${options.format}"`);
    return sendImage(reply, tag, options);
  });
};
