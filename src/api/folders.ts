import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.js';
import * as folders from '../features/folders/index.js';
import { dataEnvelope, DeletedBody, listEnvelope, pagination, PaginationQuery } from '../http/envelope.js';
import { component } from '../lib/components.js';
import { idPattern } from '../lib/ids.js';

const FOLDERS = ['Folders'];

const Folder = Type.Object(
  {
    id: Type.String({ description: 'fld_…' }),
    name: Type.String(),
    parent_id: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  {
    ...component('Folder'),
    examples: [
      {
        id: 'fld_01jd8wzr1b3d5f7h9k1m3p5r7t',
        name: 'Second floor',
        parent_id: null,
        created_at: '2026-11-25T09:10:12.004Z',
        updated_at: '2026-11-25T09:10:12.004Z',
      },
    ],
  },
);
const folderId = (description: string) => Type.String({ pattern: idPattern('fld'), description });
const FolderParams = Type.Object({ id: folderId('fld_…') });
const name = Type.String({ description: '1-255 characters after trimming' });
const parentId = Type.Union([folderId('Parent folder'), Type.Null()], { description: 'Parent folder (fld_…), or null' });

/** Folders (extension): give `folder_id` on tags a meaning. They follow the tags permissions. */
export function folderRoutes(ctx: ServiceContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/folders',
      {
        config: { permission: 'tags:read' },
        schema: {
          operationId: 'listFolders',
          summary: 'List folders',
          tags: FOLDERS,
          querystring: Type.Object({ ...PaginationQuery, parent_id: Type.Optional(folderId('Only the folders in this folder')) }),
          response: { 200: listEnvelope(Folder) },
        },
      },
      async (request) => {
        const { total, folders: items } = await folders.listFolders(ctx, request.actor, request.query);
        return { success: true as const, data: items, pagination: pagination(total, request.query.limit, request.query.offset) };
      },
    );

    app.post(
      '/folders',
      {
        config: { permission: 'tags:write' },
        schema: {
          operationId: 'createFolder',
          summary: 'Create a folder',
          tags: FOLDERS,
          body: Type.Object(
            { name, parent_id: Type.Optional(parentId) },
            { additionalProperties: false, examples: [{ name: 'Second floor', parent_id: null }] },
          ),
          response: { 201: dataEnvelope(Folder) },
        },
      },
      async (request, reply) => {
        const folder = await folders.createFolder(ctx, request.actor, request.body);
        return reply.code(201).send({ success: true as const, data: folder });
      },
    );

    app.get(
      '/folders/:id',
      {
        config: { permission: 'tags:read' },
        schema: {
          operationId: 'getFolder',
          summary: 'Get a folder',
          tags: FOLDERS,
          params: FolderParams,
          response: { 200: dataEnvelope(Folder) },
        },
      },
      async (request) => ({ success: true as const, data: await folders.getFolder(ctx, request.actor, request.params) }),
    );

    app.patch(
      '/folders/:id',
      {
        config: { permission: 'tags:write' },
        schema: {
          operationId: 'updateFolder',
          summary: 'Rename or move a folder',
          tags: FOLDERS,
          params: FolderParams,
          body: Type.Object(
            { name: Type.Optional(name), parent_id: Type.Optional(parentId) },
            { additionalProperties: false, examples: [{ name: 'Floor 2', parent_id: 'fld_01jd8wzr1b3d5f7h9k1m3p5r7t' }] },
          ),
          response: { 200: dataEnvelope(Folder) },
        },
      },
      async (request) => ({
        success: true as const,
        data: await folders.updateFolder(ctx, request.actor, { ...request.body, id: request.params.id }),
      }),
    );

    app.delete(
      '/folders/:id',
      {
        config: { permission: 'tags:delete' },
        schema: {
          operationId: 'deleteFolder',
          summary: 'Delete an empty folder',
          tags: FOLDERS,
          params: FolderParams,
          response: { 200: DeletedBody },
        },
      },
      async (request) => {
        await folders.deleteFolder(ctx, request.actor, request.params);
        return { success: true as const, message: 'Folder deleted' };
      },
    );
  };
}
