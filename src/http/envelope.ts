import { Type, type TSchema } from 'typebox';
import { component } from '../lib/components.js';

/** The response envelope shapes shared by every route (spec "Common response envelope"). */

export const ErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.String({ description: 'Machine-readable error code, e.g. validation_error' }),
      message: Type.String(),
      field: Type.Optional(Type.String({ description: 'The offending input, e.g. content[3].level' })),
      retry_after: Type.Optional(Type.Integer({ description: 'Seconds to wait before retrying' })),
      request_id: Type.String(),
    }),
  },
  { description: 'The error envelope', ...component('Error') },
);

export const Pagination = Type.Object(
  { total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer(), has_more: Type.Boolean() },
  { ...component('Pagination'), examples: [{ total: 42, limit: 20, offset: 0, has_more: true }] },
);

export const PaginationQuery = {
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1-100' }),
  // Bounded so it stays an exact integer: past 2^53 a JSON number loses digits, and past 2^63
  // the database refuses it as an OFFSET (a 500 where the caller deserves a 400).
  offset: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'Items to skip' }),
};

export function dataEnvelope<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data });
}

export function listEnvelope<T extends TSchema>(item: T) {
  return Type.Object({ success: Type.Literal(true), data: Type.Array(item), pagination: Pagination });
}

export const DeletedBody = Type.Object({ success: Type.Literal(true), message: Type.String({ examples: ['Tag deleted'] }) });

export function pagination(total: number, limit: number, offset: number) {
  return { total, limit, offset, has_more: offset + limit < total };
}
