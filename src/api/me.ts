import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PERMISSIONS, PLANS, type KeyActor } from '../features/accounts/index.js';
import { dataEnvelope } from '../http/envelope.js';
import { component } from '../lib/components.js';
import { SerializedBodies } from '../perf/serialized-bodies.js';

const Me = Type.Object(
  {
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
  },
  {
    ...component('Me'),
    examples: [
      {
        id: 'usr_01jd8wq0a2c4e6g8j0k2n4q6s8',
        email: 'alice@example.com',
        plan: 'pro',
        key: {
          id: 'key_01jd8wq3b5d7f9h1k3m5p7r9t1',
          name: 'CI',
          permissions: ['tags:read', 'tags:write'],
          environment: 'live',
          scope: 'personal',
        },
      },
    ],
  },
);

function meView(p: KeyActor) {
  return {
    id: p.userId,
    email: p.email,
    plan: p.plan,
    key: { id: p.key.id, name: p.key.name, permissions: [...p.permissions], environment: p.environment, scope: p.key.scope },
    ...(p.organizationId ? { organization: { id: p.organizationId, name: p.organizationName ?? '' } } : {}),
  };
}

export const meRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // The actor comes from the key cache (http/auth.ts): one object per key, never mutated,
  // until a change clears the cache; so its body is serialized once.
  const bodies = new SerializedBodies((actor: KeyActor) => ({ success: true as const, data: meView(actor) }));

  app.get(
    '/me',
    {
      config: { permission: null },
      schema: { operationId: 'getMe', summary: 'The current account and API key', tags: ['Account'], response: { 200: dataEnvelope(Me) } },
    },
    (request, reply) => bodies.sendWhenReady(reply, request.actor),
  );
};
