import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const shared: Options = { removeAdditional: false, useDefaults: true, allErrors: false, strict: false };

/**
 * Query strings and path parameters arrive as text, so they are coerced (`limit=20` → 20).
 * JSON bodies are not: `"title": 42` is a client bug to report, not to paper over. Unknown body
 * fields are rejected (usually typos), never silently dropped. Body errors are verbose: they
 * carry the object and its schema, which unknownFieldFirst reads.
 */
const coercing = addFormats(new Ajv({ ...shared, coerceTypes: 'array' }));
const exact = addFormats(new Ajv({ ...shared, coerceTypes: false, verbose: true }));

/** The first property of an object failing `required` that its schema does not allow, if any. */
function unknownProperty(issue: ErrorObject): string | undefined {
  const schema = issue.parentSchema as { additionalProperties?: unknown; properties?: Record<string, unknown> } | undefined;
  if (issue.keyword !== 'required' || schema?.additionalProperties !== false) return undefined;
  const data = issue.data as Record<string, unknown>;
  return Object.keys(data).find((key) => !Object.hasOwn(schema.properties ?? {}, key));
}

/**
 * A typo (`titel`) makes both an unknown field and a missing required one (`title`); Ajv
 * reports the required one first, which sends the caller looking for the wrong mistake. So an
 * object's unknown field is reported in its place.
 */
function unknownFieldFirst(validate: ValidateFunction): ValidateFunction {
  const check = ((data: unknown) => {
    if (validate(data)) return true;
    const issue = validate.errors![0]!;
    const unknown = unknownProperty(issue);
    check.errors = unknown
      ? [
          {
            ...issue,
            keyword: 'additionalProperties',
            params: { additionalProperty: unknown },
            message: 'must NOT have additional properties',
          },
        ]
      : validate.errors;
    return false;
  }) as ValidateFunction;
  return check;
}

export function installValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? unknownFieldFirst(exact.compile(schema)) : coercing.compile(schema),
  );
}
