import { beforeAll, describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { createAccount, createKey, request, type ApiResponse } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { createWebhook, deliveryEnv } from '../webhooks/support.js';

/**
 * Malformed input for every operation of the service's own OpenAPI document: whatever a client
 * sends, the answer is never a 5xx, and every /v1 error is the envelope with the request id of
 * its X-Request-Id header. The cases are a fixed list derived from each operation's parameters
 * and body schema (no randomness), so a failure names the request that reproduces it.
 */

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  minimum?: number;
  minItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: Schema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}

interface Case {
  method: string;
  path: string;
  /** JSON text sent as the body, as-is (so `1e309` reaches the parser unrounded). */
  body?: string;
  contentType?: string;
  /** What was malformed, for the failure message. */
  input: string;
}

const LONG = 'z'.repeat(101);
const HUGE = 'y'.repeat(10_000);

/** Malformed values for a path segment (already percent-encoded where it matters). */
const PATH_VALUES = ['%00', '%ff', `a%00b`, LONG, HUGE, '9000000000000000', '-1', 'null', '%2e%2e', 'tag_', 'fld_x'];
/** Malformed values for a query parameter, encoded as they go on the wire. */
const QUERY_VALUES = ['%00', '%ff', LONG, HUGE, '', '9000000000000000', '1e309', '-1', '2.5', 'not_a_value', 'true', '%5B%5D'];
/** Malformed JSON values for a body property, as JSON text. */
const BODY_VALUES = [
  '"\\u0000"',
  '"a\\u0000b"',
  '"%ff"',
  JSON.stringify(LONG),
  JSON.stringify(HUGE),
  '""',
  '9000000000000000',
  '1e309',
  '-1',
  'true',
  'null',
  '[]',
  '{}',
  '[{}]',
  '["not_a_value"]',
  '{"type":"not_a_value"}',
  '"not_a_value"',
];
/** Whole bodies of the wrong shape. */
const WHOLE_BODIES = ['[]', '[{}]', '"text"', 'null', '9000000000000000', '1e309', '{}', '{"unknown_field":1}', '{"a":"\\u0000"}'];

describe('fuzz of every operation in the OpenAPI document', () => {
  const t = useApp(async () => ({ env: await deliveryEnv() }));
  let key: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    // An organization key with every permission: the widest scope, as the attack run used.
    const owner = await createAccount(t, 'enterprise');
    const org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Fuzz', ownerEmail: owner.email, plan: 'enterprise' });
    key = (await createKey(t, owner.email, { organizationId: org.id })).key;
    const folder = await request(t, 'POST', '/v1/folders', { key, body: { name: 'fuzz' } });
    const tag = await request(t, 'POST', '/v1/tags', { key, body: { title: 'fuzz', folder_id: folder.body.data.id } });
    const webhook = await createWebhook(t, key, { url: 'https://127.0.0.1:9/hook', events: ['tag.created'] });
    ids.fld = folder.body.data.id;
    ids.tag = tag.body.data.id;
    ids.wh = webhook.id;
    // Well-formed ids that name nothing: the operations still run their look-ups.
    ids.file = 'file_00000000000000000000000000';
    ids.dlv = 'dlv_00000000000000000000000000';
  });

  /** A well-formed value for a path parameter of `path`, so one malformed input is tried at a time. */
  function validPathValue(path: string, name: string): string {
    if (name === 'delivery_id') return ids.dlv!;
    if (name === 'file_id') return ids.file!;
    if (path.startsWith('/v1/folders')) return ids.fld!;
    if (path.startsWith('/v1/webhooks')) return ids.wh!;
    return ids.tag!;
  }

  /** A value the schema accepts, so a body differs from a valid one in one property only. */
  function sample(schema: Schema, name = ''): unknown {
    if (schema.const !== undefined) return schema.const;
    if (schema.enum) return schema.enum[0];
    const options = schema.anyOf ?? schema.oneOf;
    if (options) return sample(options.find((option) => option.type !== 'null') ?? options[0]!, name);
    const type = Array.isArray(schema.type) ? schema.type.find((item) => item !== 'null') : schema.type;
    switch (type) {
      case 'integer':
      case 'number':
        return schema.minimum ?? 1;
      case 'boolean':
        return true;
      case 'array':
        return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items ?? {}, name));
      case 'object':
        return Object.fromEntries((schema.required ?? []).map((key) => [key, sample(schema.properties![key]!, key)]));
      default:
        if (schema.pattern?.includes('fld_')) return ids.fld;
        if (schema.pattern?.includes('tag_')) return ids.tag;
        if (name === 'url') return 'https://127.0.0.1:9/hook';
        return 'fuzz';
    }
  }

  function casesOf(path: string, method: string, operation: Operation): Case[] {
    const verb = method.toUpperCase();
    const parameters = operation.parameters ?? [];
    const pathParameters = parameters.filter((parameter) => parameter.in === 'path');
    const fill = (overrides: Record<string, string> = {}) =>
      path.replace(/\{([^}]+)\}/g, (_, name: string) => overrides[name] ?? validPathValue(path, name));
    const json = operation.requestBody?.content['application/json']?.schema;
    const validBody = json ? JSON.stringify(sample(json)) : undefined;
    const cases: Case[] = [];

    for (const parameter of pathParameters) {
      for (const value of PATH_VALUES) {
        cases.push({
          method: verb,
          path: fill({ [parameter.name]: value }),
          body: validBody,
          input: `path ${parameter.name}=${value.slice(0, 40)}`,
        });
      }
    }
    for (const parameter of parameters.filter((item) => item.in === 'query')) {
      for (const value of QUERY_VALUES) {
        cases.push({
          method: verb,
          path: `${fill()}?${parameter.name}=${value}`,
          body: validBody,
          input: `query ${parameter.name}=${value.slice(0, 40)}`,
        });
      }
      // Repeated: an array where one value is expected.
      cases.push({
        method: verb,
        path: `${fill()}?${parameter.name}=1&${parameter.name}=2`,
        body: validBody,
        input: `query ${parameter.name} twice`,
      });
    }
    if (operation.requestBody) {
      for (const body of WHOLE_BODIES) cases.push({ method: verb, path: fill(), body, input: `body ${body}` });
      if (!json) {
        // Not a JSON operation (an upload): JSON sent anyway must be refused, not crash.
        cases.push({ method: verb, path: fill(), body: '{"file":"\\u0000"}', input: 'JSON to a non-JSON operation' });
      }
    }
    if (json?.properties) {
      const valid = JSON.parse(validBody!) as Record<string, unknown>;
      for (const property of Object.keys(json.properties)) {
        for (const value of BODY_VALUES) {
          const rest = JSON.stringify({ ...valid, [property]: undefined }).slice(1, -1);
          const body = `{${rest}${rest ? ',' : ''}${JSON.stringify(property)}:${value}}`;
          cases.push({ method: verb, path: fill(), body, input: `body ${property}=${value.slice(0, 40)}` });
        }
      }
    }
    return cases;
  }

  function problemsOf(response: ApiResponse, item: Case): string | undefined {
    if (response.status >= 500) return `status ${response.status}`;
    if (response.status < 400 || !item.path.startsWith('/v1')) return undefined;
    const requestId = response.headers.get('x-request-id');
    if (!requestId || !/^req_[0-9a-z]{26}$/.test(requestId)) return `no X-Request-Id header`;
    const error = response.body?.error;
    if (response.body?.success !== false || typeof error?.code !== 'string' || typeof error.message !== 'string') {
      return `not the error envelope: ${response.text.slice(0, 200)}`;
    }
    if (error.request_id !== requestId) return `request_id ${error.request_id} is not the header's ${requestId}`;
    if (response.text.includes(LONG)) return 'the input is echoed';
    return undefined;
  }

  it('answers malformed input to every operation without a 5xx, in the envelope', async () => {
    const document = await request(t, 'GET', '/v1/openapi.json');
    expect(document.status).toBe(200);
    const paths = document.body.paths as Record<string, Record<string, Operation>>;
    const cases: Case[] = [];
    let operations = 0;
    for (const [path, methods] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        operations++;
        cases.push(...casesOf(path, method, operation));
      }
    }
    for (const path of ['/v1/no-such-route', '/v1/%ff', '/v1/%00', `/v1/tags/${ids.tag}/no/such/route`, `/v1/${LONG}`]) {
      cases.push({ method: 'GET', path, input: 'unknown path' });
    }
    expect(operations).toBeGreaterThan(30);

    const failures: string[] = [];
    // A few at a time: fast, and still ordered enough that a failure reproduces by itself.
    const CONCURRENCY = 8;
    for (let start = 0; start < cases.length; start += CONCURRENCY) {
      await Promise.all(
        cases.slice(start, start + CONCURRENCY).map(async (item) => {
          const response = await request(t, item.method, item.path, {
            key,
            ...(item.body !== undefined ? { rawBody: item.body, headers: { 'content-type': item.contentType ?? 'application/json' } } : {}),
          });
          const problem = problemsOf(response, item);
          if (problem) failures.push(`${item.method} ${item.path.slice(0, 120)} [${item.input}]: ${problem}`);
        }),
      );
    }
    console.log(`fuzz: ${cases.length} requests over ${operations} operations`);
    expect(failures, failures.slice(0, 30).join('\n')).toEqual([]);
  }, 120_000);
});
