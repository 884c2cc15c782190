import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { dataEnvelope } from '../../http/envelope.js';
import { PERMISSIONS } from './permissions.js';
import { PLANS } from './plans.js';

const Me = Type.Object({
  id: Type.String({ description: 'The user the key acts for' }),
  email: Type.String(),
  plan: Type.Enum(PLANS, { description: 'The plan that governs this key' }),
  key: Type.Object({
    id: Type.String(),
    name: Type.String(),
    permissions: Type.Array(Type.Enum(PERMISSIONS)),
    environment: Type.Enum(['live', 'test']),
    scope: Type.Enum(['personal', 'organization']),
  }),
  organization: Type.Optional(Type.Object({ id: Type.String(), name: Type.String() })),
});

export const meRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/me',
    {
      config: { permission: null },
      schema: {
        summary: 'The current account and API key',
        tags: ['Account'],
        response: { 200: dataEnvelope(Me) },
      },
    },
    async (request) => {
      const p = request.principal;
      return {
        success: true as const,
        data: {
          id: p.userId,
          email: p.email,
          plan: p.plan,
          key: { id: p.keyId, name: p.keyName, permissions: [...p.permissions], environment: p.environment, scope: p.scope },
          ...(p.organizationId ? { organization: { id: p.organizationId, name: p.organizationName ?? '' } } : {}),
        },
      };
    },
  );
};
