import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const shared: Options = { removeAdditional: false, useDefaults: true, allErrors: false, strict: false };

/**
 * Query strings and path parameters arrive as text, so they are coerced (`limit=20` → 20).
 * JSON bodies are not: `"title": 42` is a client bug to report, not to paper over. Unknown body
 * fields are rejected (usually typos), never silently dropped.
 */
const coercing = addFormats(new Ajv({ ...shared, coerceTypes: 'array' }));
const exact = addFormats(new Ajv({ ...shared, coerceTypes: false }));

export function installValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? exact : coercing).compile(schema));
}
