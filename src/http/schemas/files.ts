import { Type } from 'typebox';
import { FilePayload } from '../../features/events/index.js';
import {
  ALLOWED_EXTENSIONS,
  DEFAULT_QUALITY,
  MAX_DESCRIPTION,
  MAX_DIMENSION,
  MAX_NAME,
  OUTPUT_FORMATS,
} from '../../features/files/index.js';
import { idPattern, TAG_REF_PATTERN } from '../../lib/ids.js';

/** The public contract of the file endpoints (TypeBox → validation, serialization, OpenAPI). */

/** A file as the API returns it: the catalogue's payload of file.uploaded and file.deleted. */
export const File = FilePayload;

const name = Type.String({ description: `1-${MAX_NAME} characters, no / \\ or control characters` });
const description = Type.Union([Type.String({ maxLength: MAX_DESCRIPTION }), Type.Null()], {
  description: `At most ${MAX_DESCRIPTION} characters`,
});

export const TagFilesParams = Type.Object({ id: Type.String({ pattern: TAG_REF_PATTERN, description: 'Tag id (tag_…) or short id' }) });
export const FileParams = Type.Object({ file_id: Type.String({ pattern: idPattern('file'), description: 'file_…' }) });

const TYPES_DESCRIPTION =
  `Allowed extensions: ${ALLOWED_EXTENSIONS.join(', ')}; the content must match the extension ` +
  '(magic bytes; text formats must be UTF-8). Executables and scripts (.exe, .app, .sh, .js, .py, .rb) are refused; ' +
  'zip archives may not contain executables (.exe, .app, .sh).';

/**
 * Documentation of the multipart body. It is read as a stream by the handler (never parsed
 * into memory), so the schema has no `type` and does not constrain the (absent) parsed body.
 */
export const UploadBody = {
  content: {
    'multipart/form-data': {
      schema: {
        properties: {
          file: { type: 'string', format: 'binary', description: `The file (required). ${TYPES_DESCRIPTION}` },
          name: { type: 'string', description: `Display name (default: the uploaded file name); 1-${MAX_NAME} characters` },
          description: { type: 'string', description: `At most ${MAX_DESCRIPTION} characters` },
        },
        required: ['file'],
      },
    },
  },
};

export const FromUrlBody = Type.Object(
  {
    url: Type.String({ description: 'http or https; private, loopback and link-local addresses are refused' }),
    name: Type.Optional(name),
    description: Type.Optional(description),
  },
  {
    additionalProperties: false,
    examples: [{ url: 'https://example.com/floor-plan.pdf', name: 'floor-plan.pdf', description: 'Evacuation routes' }],
  },
);

export const PatchBody = Type.Object(
  { name: Type.Optional(name), description: Type.Optional(description) },
  { additionalProperties: false, examples: [{ name: 'floor-plan-2026.pdf', description: null }] },
);

const dimension = (what: string) =>
  Type.Integer({ minimum: 1, maximum: MAX_DIMENSION, description: `${what} in pixels (1-${MAX_DIMENSION}); images only` });

export const DownloadQuery = Type.Object({
  width: Type.Optional(dimension('Maximum width')),
  height: Type.Optional(dimension('Maximum height')),
  quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: `1-100, default ${DEFAULT_QUALITY} (jpeg, webp, avif)` })),
  format: Type.Optional(Type.Enum(OUTPUT_FORMATS, { description: 'Output format; default: the image’s own (SVG: png)' })),
});

export const ThumbnailQuery = Type.Object({
  width: Type.Optional(dimension('Maximum width, default 256,')),
  height: Type.Optional(dimension('Maximum height, default 256,')),
  quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: `1-100, default ${DEFAULT_QUALITY}` })),
  format: Type.Optional(Type.Enum(OUTPUT_FORMATS, { description: 'Default webp' })),
});
