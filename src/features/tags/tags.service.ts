import type { ServiceContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import { exactCache, type CacheSnapshot } from '../../perf/exact-cache.js';
import { andThen, type MaybePromise } from '../../lib/maybe-promise.js';
import type { Environment, ReadPermission, TagsTable, WritePermission } from '../../db/schema.js';
import { countCreatedInScope, requireAccess, requirePermission, scopeOf, type Actor, type Scope } from '../accounts/index.js';
import { ApiError, checkFields, DependencyUnavailable, forbidden, validationError, whenGiven } from '../../errors.js';
import { hashPassword } from '../../lib/passwords.js';
import { cleanLabel } from '../../lib/text-fields.js';
import { isoNow } from '../../lib/clock.js';
import { isId, isShortId, newId, randomBase62 } from '../../lib/ids.js';
import { recordAudit } from '../audit/index.js';
import { emit, eventOf, type QrPayload, type TagPayload, type TagSummary } from '../events/index.js';
import { requireOwnFolder } from '../folders/index.js';
import { checkChosenShortId, shortIdTaken, takenFrom } from './addresses.js';
import { blocksFromHtml, parseBlocks, type Block } from './blocks.js';
import { previewUrl, previewWindow } from './preview.js';
import { checkPublishing, type PublishingFields, type PublishingInput } from './publishing.js';
import * as repo from './tags.repository.js';
import { transaction } from '../../db/transaction.js';

/** The request body of create (either shape), of each batch item, and of PUT. */
export interface TagInput extends PublishingInput {
  /** A chosen address; else one is issued at random (create) or kept (update). */
  short_id?: string;
  title?: string;
  content?: unknown[] | string;
  folder_id?: string | null;
  permissions?: { read?: ReadPermission; write?: WritePermission };
  readPermission?: ReadPermission;
  writePermission?: WritePermission;
  access_logging?: boolean;
}

export const MAX_TITLE = 255;
const SHORT_ID_LENGTH = 8;

/** Addresses of a tag (and its files) live on the sandbox host for test data when one is configured. */
export function baseUrlFor(config: Pick<ServiceContext['config'], 'publicBaseUrl' | 'sandboxBaseUrl'>, environment: Environment): string {
  return environment === 'test' && config.sandboxBaseUrl ? config.sandboxBaseUrl : config.publicBaseUrl;
}

export function publicPageUrl(config: ServiceContext['config'], tag: Pick<TagsTable, 'short_id' | 'environment'>): string {
  return `${baseUrlFor(config, tag.environment)}/t/${tag.short_id}`;
}

/** What the QR code encodes: the scan address, which records the view as a QR scan. */
export function scanUrl(config: ServiceContext['config'], tag: Pick<TagsTable, 'short_id' | 'environment'>): string {
  return `${baseUrlFor(config, tag.environment)}/s/${tag.short_id}`;
}

/** The one API representation of a tag, used by every endpoint and by tag.* events. */
export function toTagView(config: ServiceContext['config'], row: repo.TagRow): TagPayload {
  return {
    id: row.id,
    short_id: row.short_id,
    title: row.title,
    content: JSON.parse(row.content) as Block[],
    folder_id: row.folder_id,
    permissions: { read: row.read_permission, write: row.write_permission },
    access_logging: row.access_logging === 1,
    owner: { id: row.owner_id, email: row.owner_email },
    qr_url: `${baseUrlFor(config, row.environment)}/v1/tags/${row.id}/qr`,
    public_qr_url: row.read_permission === 'public' ? `${publicPageUrl(config, row)}/qr.svg` : null,
    url: publicPageUrl(config, row),
    status: row.status,
    publish_at: row.publish_at,
    expires_at: row.expires_at,
    max_views: row.max_views,
    expired_url: row.expired_url,
    password_protected: row.password_hash !== null,
    theme: { preset: row.theme_preset, accent_color: row.theme_accent },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export type TagView = TagPayload;

/** A single tag as GET returns it: its view and an address to preview its page in any state. */
export type TagRead = TagView & { preview_url: string };

// Cached rows are shared and never mutated, so their API view can be built once per row (and
// preview window: the view's preview address stays valid for one to two windows).
const views = new WeakMap<repo.TagRow, { window: number; view: TagRead }>();

function readOf(ctx: ServiceContext, view: TagView, row: Pick<TagsTable, 'id' | 'environment'>, window: number): TagRead {
  return { ...view, preview_url: previewUrl(ctx.config.secretKey, baseUrlFor(ctx.config, row.environment), row.id, window) };
}

function cachedView(ctx: ServiceContext, row: repo.TagRow): TagRead {
  const window = previewWindow(ctx.clock.now());
  let cached = views.get(row);
  if (cached?.window !== window) views.set(row, (cached = { window, view: readOf(ctx, toTagView(ctx.config, row), row, window) }));
  return cached.view;
}

/** A tag just written, as its writer gets it back: as GET would return it. */
function freshRead(ctx: ServiceContext, view: TagView, row: Pick<TagsTable, 'id' | 'environment'>): TagRead {
  return readOf(ctx, view, row, previewWindow(ctx.clock.now()));
}

/** The short form used by tag.deleted, tag.viewed, qr.* and file.* events. */
export function tagSummary(row: Pick<TagsTable, 'id' | 'short_id' | 'title'>): TagSummary {
  return { id: row.id, short_id: row.short_id, title: row.title };
}

function cleanTitle(title: string, field: string): string {
  return cleanLabel(title, field, MAX_TITLE);
}

/** Resolves one permission given either as permissions.x or as the top-level alias. */
function permission<T extends string>(input: TagInput, key: 'read' | 'write', prefix: string): { value?: T; field: string } {
  const nested = input.permissions?.[key] as T | undefined;
  const aliasName = key === 'read' ? 'readPermission' : 'writePermission';
  const alias = input[aliasName] as T | undefined;
  if (nested !== undefined && alias !== undefined) {
    throw validationError(`${prefix}${aliasName}`, `give ${prefix}permissions.${key} or ${prefix}${aliasName}, not both`);
  }
  return alias !== undefined ? { value: alias, field: `${prefix}${aliasName}` } : { value: nested, field: `${prefix}permissions.${key}` };
}

interface ResolvedFields extends PublishingFields {
  short_id?: string;
  title?: string;
  content?: Block[];
  folder_id?: string | null;
  read_permission?: ReadPermission;
  write_permission?: WritePermission;
  access_logging?: number;
}

/**
 * Validates a body against the rules the schema cannot express (trimmed title, blocks, folder
 * ownership, organization-only permission values). `prefix` names batch items: `tags[2].`.
 */
async function resolveFields(
  ctx: ServiceContext,
  scope: Scope,
  input: TagInput,
  prefix: string,
  existing?: repo.TagRow,
): Promise<ResolvedFields> {
  // Every field is checked, in this order (the API answers the first refusal); none stops the others.
  const checked = await checkFields({
    title: whenGiven(input.title, (title) => cleanTitle(title, `${prefix}title`)),
    content: whenGiven(input.content, (content) => resolveContent(ctx, content, prefix, existing)),
    folder_id: whenGiven(input.folder_id, async (folderId) => {
      if (folderId !== null) await requireOwnFolder(ctx, scope, folderId, `${prefix}folder_id`);
      return folderId;
    }),
    read_permission: () => permissionIn<ReadPermission>(scope, input, 'read', prefix),
    write_permission: () => permissionIn<WritePermission>(scope, input, 'write', prefix),
    short_id: whenGiven(input.short_id, (shortId) => checkChosenShortId(shortId, `${prefix}short_id`)),
    publishing: () => checkPublishing(input, prefix, existing),
  });
  const { publishing, ...fields } = checked;
  const resolved: ResolvedFields = { ...publishing };
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) Object.assign(resolved, { [name]: value });
  if (input.access_logging !== undefined) resolved.access_logging = input.access_logging ? 1 : 0;
  // Hashed once everything else holds: a refused body costs no scrypt.
  if (input.password !== undefined) resolved.password_hash = input.password === null ? null : await hashPassword(input.password);
  return resolved;
}

async function resolveContent(ctx: ServiceContext, content: unknown[] | string, prefix: string, existing?: repo.TagRow): Promise<Block[]> {
  if (typeof content === 'string') return blocksFromHtml(content, `${prefix}content`);
  const keep = new Set(existing ? (JSON.parse(existing.content) as Block[]).map((b) => b.id) : []);
  const blocks = parseBlocks(content, `${prefix}content`, keep);
  for (const dependent of ctx.tagDependents) await dependent.checkBlocks?.(ctx, existing?.id ?? null, blocks, `${prefix}content`);
  return blocks;
}

/** A permission as given, when the scope allows it: `organization` only for organization tags. */
function permissionIn<T extends string>(scope: Scope, input: TagInput, key: 'read' | 'write', prefix: string): T | undefined {
  const { value, field } = permission<T>(input, key, prefix);
  if (value === 'organization' && !scope.organizationId) {
    throw validationError(field, `${field} can be organization only for tags created with an organization key`);
  }
  return value;
}

function requireTitle(input: TagInput, prefix: string): void {
  if (input.title === undefined) throw validationError(`${prefix}title`, `${prefix}title is required`);
}

/** Issues an 8-character short id that was never issued before. */
async function issueShortId(db: Db, tagId: string, at: string): Promise<string> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const candidate = randomBase62(SHORT_ID_LENGTH);
    if (await repo.claimShortId(db, candidate, tagId, at)) return candidate;
  }
  throw new Error('could not issue a unique short id');
}

/**
 * Gives `tagId` the address it chose: one no other tag holds or ever held, ignoring case. The
 * tag's own earlier address may be taken back, or written with other cases; every address it
 * leaves keeps pointing at it (the public pages redirect).
 */
async function takeChosenShortId(db: Db, tagId: string, chosen: string, at: string, field: string): Promise<void> {
  const issued = await repo.findAddresses(db, chosen);
  if (takenFrom(issued, tagId)) throw shortIdTaken(chosen, field);
  if (issued.some((address) => address.short_id === chosen)) return;
  if (issued.length > 0) return repo.recaseShortId(db, issued[0]!.short_id, chosen);
  // Another request may have claimed it since the look-up.
  if (!(await repo.claimShortId(db, chosen, tagId, at))) throw shortIdTaken(chosen, field);
}

async function insertNewTag(trx: Db, ctx: ServiceContext, actor: Actor, fields: ResolvedFields, prefix: string) {
  const now = isoNow(ctx.clock);
  const id = newId('tag');
  if (fields.short_id !== undefined) await takeChosenShortId(trx, id, fields.short_id, now, `${prefix}short_id`);
  const row: TagsTable = {
    id,
    short_id: fields.short_id ?? (await issueShortId(trx, id, now)),
    environment: actor.environment,
    owner_id: actor.userId,
    organization_id: actor.organizationId,
    folder_id: fields.folder_id ?? null,
    title: fields.title!,
    content: JSON.stringify(fields.content ?? []),
    read_permission: fields.read_permission ?? 'public',
    write_permission: fields.write_permission ?? 'owner',
    access_logging: fields.access_logging ?? 0,
    status: fields.status ?? 'published',
    publish_at: fields.publish_at ?? null,
    expires_at: fields.expires_at ?? null,
    max_views: fields.max_views ?? null,
    expired_url: fields.expired_url ?? null,
    password_hash: fields.password_hash ?? null,
    theme_preset: fields.theme_preset ?? 'default',
    theme_accent: fields.theme_accent ?? null,
    version: 1,
    created_at: now,
    updated_at: now,
  };
  await repo.insertTag(trx, row);
  const view = toTagView(ctx.config, { ...row, owner_email: actor.email });
  await emit(trx, eventOf(row, 'tag.created', { tag: view }, now));
  await recordAudit(ctx, trx, actor, { action: 'tag.created', targetId: id, environment: row.environment });
  return freshRead(ctx, view, row);
}

export async function createTag(ctx: ServiceContext, actor: Actor, input: TagInput): Promise<TagRead> {
  requirePermission(actor, 'tags:write');
  requireTitle(input, '');
  const fields = await resolveFields(ctx, scopeOf(actor), input, '');
  return transaction(ctx.db, (trx) => insertNewTag(trx, ctx, actor, fields, ''));
}

/**
 * Every refusal of this input's fields that createTag (or, with `id`, updateTag) would give,
 * writing nothing: a form with problems of its own lists the service's beside them. An address
 * another tag holds is found only by the write itself (the dashboard checks it as it is typed).
 */
export async function checkTagInput(ctx: ServiceContext, actor: Actor, { id, ...input }: { id?: string } & TagInput): Promise<void> {
  const existing = id === undefined ? undefined : await requireTag(ctx, actor, id);
  if (!existing) requireTitle(input, '');
  await resolveFields(ctx, scopeOf(actor), input, '', existing);
}

/** A problem of one batch item: its index in the batch and the service's validation error. */
export interface BatchProblem {
  index: number;
  error: ApiError;
}

/**
 * Every item's validation problem at once, writing nothing: what createTags would refuse (it
 * stops at the first). The dashboard's import lists them all, row by row.
 */
export async function findBatchProblems(ctx: ServiceContext, actor: Actor, { tags: inputs }: { tags: TagInput[] }) {
  const scope = scopeOf(actor);
  const problems: BatchProblem[] = [];
  for (const [index, input] of inputs.entries()) {
    const prefix = `tags[${index}].`;
    try {
      requireTitle(input, prefix);
      await resolveFields(ctx, scope, input, prefix);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'validation_error') throw error;
      problems.push({ index, error });
    }
  }
  return problems;
}

/** All or nothing: every item is validated before anything is written, then one transaction. */
export async function createTags(ctx: ServiceContext, actor: Actor, { tags: inputs }: { tags: TagInput[] }) {
  requirePermission(actor, 'tags:write');
  const scope = scopeOf(actor);
  const resolved: ResolvedFields[] = [];
  for (const [index, input] of inputs.entries()) {
    const prefix = `tags[${index}].`;
    requireTitle(input, prefix);
    resolved.push(await resolveFields(ctx, scope, input, prefix));
  }
  const views = await transaction(ctx.db, async (trx) => {
    const created: TagRead[] = [];
    for (const [index, fields] of resolved.entries()) created.push(await insertNewTag(trx, ctx, actor, fields, `tags[${index}].`));
    return created;
  });
  return { created: views.length, tags: views.map((v) => ({ id: v.id, short_id: v.short_id })) };
}

/**
 * Finds a tag by long id (`tag_…`) or 8-character short id. Every tag-scoped request and every
 * public page view starts here: cached, exactly (exact-cache.ts), and a cached tag is answered
 * without a promise.
 */
export function findTag(ctx: ServiceContext, idOrShortId: string): MaybePromise<repo.TagRow | undefined> {
  return andThen(
    exactCache<repo.TagRow>(ctx.db, 'tags')?.snapshot(),
    (cache) => cache?.get(idOrShortId) ?? loadTag(ctx, idOrShortId, cache),
  );
}

/**
 * findTag for a public page: while the database cannot be reached, the tag as this process last
 * knew it, when it knew it (a page people were viewing stays up through an outage, possibly a
 * change behind); else the outage's 503.
 */
export function findTagForPage(ctx: ServiceContext, shortId: string): MaybePromise<repo.TagRow | undefined> {
  const found = findTag(ctx, shortId);
  if (!(found instanceof Promise)) return found;
  return found.catch((error: unknown) => {
    const known = error instanceof DependencyUnavailable ? exactCache<repo.TagRow>(ctx.db, 'tags')?.lastKnown(shortId) : undefined;
    if (!known) throw error;
    return known;
  });
}

/**
 * The tag an address no tag holds used to name, or names in other cases: its page has moved
 * to the tag's current address (undefined when no tag is behind it any more).
 */
export async function findMovedTag(ctx: ServiceContext, shortId: string): Promise<repo.TagRow | undefined> {
  if (!isShortId(shortId)) return undefined;
  const addresses = await repo.findAddresses(ctx.db, shortId);
  const address = addresses.find((a) => a.short_id === shortId) ?? addresses[0];
  const tag = address?.tag_id ? await findTag(ctx, address.tag_id) : undefined;
  return tag && tag.short_id !== shortId ? tag : undefined;
}

async function loadTag(
  ctx: ServiceContext,
  idOrShortId: string,
  cache: CacheSnapshot<repo.TagRow> | undefined,
): Promise<repo.TagRow | undefined> {
  const { db } = ctx;
  let row: repo.TagRow | undefined;
  // Anything else cannot name a tag, and is not worth a query (or, holding NUL, refused by PostgreSQL).
  if (isId('tag', idOrShortId)) row = await repo.findTagById(db, idOrShortId);
  else if (isShortId(idOrShortId)) row = await repo.findTagByShortId(db, idOrShortId);
  if (row) {
    cache?.set(row.id, row);
    cache?.set(row.short_id, row);
  }
  return row;
}

/**
 * A tag's page lists its files: attaching, renaming or deleting one makes a new version of the
 * page (cached per version), in the same transaction as the file's change.
 */
export function bumpPageVersion(db: Db, tagId: string): Promise<void> {
  return repo.updateTagRow(db, tagId, {});
}

export function requireTag(ctx: ServiceContext, actor: Actor, idOrShortId: string): MaybePromise<repo.TagRow> {
  return andThen(findTag(ctx, idOrShortId), (row) => requireAccess(row, scopeOf(actor), 'Tag'));
}

/** `write: owner` lets only the tag's owner change it; `organization` any key of its organization. */
export function requireWritable(tag: repo.TagRow, actor: Actor): void {
  if (tag.write_permission === 'owner' && tag.owner_id !== actor.userId) {
    throw forbidden('Only the owner of this tag may change it (permissions.write is owner)');
  }
}

/** The tag's view: the same object for as long as its row is cached unchanged (never mutate it). */
export function getTag(ctx: ServiceContext, actor: Actor, { id: idOrShortId }: { id: string }): MaybePromise<TagRead> {
  requirePermission(actor, 'tags:read');
  return andThen(requireTag(ctx, actor, idOrShortId), (row) => cachedView(ctx, row));
}

export async function listTags(ctx: ServiceContext, actor: Actor, query: Omit<repo.TagListQuery, 'folderId'> & { folder?: string }) {
  requirePermission(actor, 'tags:read');
  const scope = scopeOf(actor);
  if (query.folder) await requireOwnFolder(ctx, scope, query.folder, 'folder');
  const { total, rows } = await repo.listTags(ctx.db, scope, { ...query, folderId: query.folder });
  const tags = rows.map((row) => ({
    id: row.id,
    short_id: row.short_id,
    title: row.title,
    folder_id: row.folder_id,
    permissions: { read: row.read_permission, write: row.write_permission },
    status: row.status,
    // The API's list leaves these out (its schema); the dashboard's shows the page's state and address.
    url: publicPageUrl(ctx.config, row),
    publish_at: row.publish_at,
    expires_at: row.expires_at,
    max_views: row.max_views,
    password_protected: row.password_hash !== null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }));
  return { total, tags };
}

/** How many tags each of the actor's folders holds, by folder id (one grouped query). */
export function countTagsByFolder(ctx: ServiceContext, actor: Actor): Promise<Map<string, number>> {
  return repo.countTagsByFolder(ctx.db, scopeOf(actor));
}

/** PUT: omitted fields keep their value; content, when given, replaces the whole list. */
export async function updateTag(
  ctx: ServiceContext,
  actor: Actor,
  { id: idOrShortId, ...input }: { id: string } & TagInput,
): Promise<TagRead> {
  requirePermission(actor, 'tags:write');
  const tag = await requireTag(ctx, actor, idOrShortId);
  requireWritable(tag, actor);
  const fields = await resolveFields(ctx, scopeOf(actor), input, '', tag);
  const now = isoNow(ctx.clock);
  const changes: Partial<TagsTable> = {
    ...fields,
    content: fields.content ? JSON.stringify(fields.content) : undefined,
    updated_at: now,
  };
  if (changes.content === undefined) delete changes.content;
  const updated: repo.TagRow = { ...tag, ...changes };
  const view = toTagView(ctx.config, updated);
  await transaction(ctx.db, async (trx) => {
    if (fields.short_id !== undefined && fields.short_id !== tag.short_id)
      await takeChosenShortId(trx, tag.id, fields.short_id, now, 'short_id');
    await repo.updateTagRow(trx, tag.id, changes);
    await emit(trx, eventOf(tag, 'tag.updated', { tag: view }, now));
    await recordAudit(ctx, trx, actor, {
      action: 'tag.updated',
      targetId: tag.id,
      environment: tag.environment,
      details: { fields: Object.keys(input).join(',') },
    });
  });
  return freshRead(ctx, view, tag);
}

/**
 * What the tag's page would show after an update with this title and content, without saving
 * it: the same checks and sanitizing as updateTag, so a preview never shows what saving would
 * refuse or change (the dashboard's editor).
 */
export async function previewTag(
  ctx: ServiceContext,
  actor: Actor,
  { id: idOrShortId, title, content }: { id: string; title: string; content: unknown[] },
): Promise<{ title: string; blocks: Block[]; short_id: string }> {
  requirePermission(actor, 'tags:write');
  const tag = await requireTag(ctx, actor, idOrShortId);
  requireWritable(tag, actor);
  const fields = await resolveFields(ctx, scopeOf(actor), { title, content }, '', tag);
  return { title: fields.title!, blocks: fields.content!, short_id: tag.short_id };
}

export async function deleteTag(ctx: ServiceContext, actor: Actor, { id: idOrShortId }: { id: string }): Promise<void> {
  requirePermission(actor, 'tags:delete');
  const tag = await requireTag(ctx, actor, idOrShortId);
  requireWritable(tag, actor);
  await removeTag(ctx, tag, actor);
}

/**
 * The one deletion of a tag: what other features keep for it (its files, its analytics), then
 * its row, in one transaction. Deleted `by` someone, it emits tag.deleted and is audited;
 * expired sandbox data (no one) goes silently.
 * Before it, each feature deletes what may go early in short transactions of its own (a tag's
 * raw views: hundreds of thousands of rows in one transaction held SQLite, and with it the
 * server's one thread, for seconds); the tag's row goes last, so a deletion cut short leaves a
 * whole tag that can be deleted again.
 */
async function removeTag(ctx: ServiceContext, tag: repo.TagRow, by: Actor | undefined): Promise<void> {
  for (const dependent of ctx.tagDependents) await dependent.deleteBeforeTag?.(ctx, tag);
  await transaction(ctx.db, async (trx) => {
    for (const dependent of ctx.tagDependents) await dependent.deleteWithTag(ctx, trx, tag);
    await repo.deleteTagRow(trx, tag.id);
    if (!by) return;
    await emit(trx, eventOf(tag, 'tag.deleted', { tag: tagSummary(tag) }, isoNow(ctx.clock)));
    await recordAudit(ctx, trx, by, { action: 'tag.deleted', targetId: tag.id, environment: tag.environment });
  });
}

/** Sandbox purge: test tags created before `before` go, each in a transaction of its own. */
export async function purgeTestTagsCreatedBefore(ctx: ServiceContext, before: string): Promise<number> {
  const ids = await repo.findTestTagIdsCreatedBefore(ctx.db, before);
  for (const id of ids) {
    const tag = await repo.findTagById(ctx.db, id);
    if (tag) await removeTag(ctx, tag, undefined);
  }
  return ids.length;
}

/** Records that a QR code of the tag was generated (qr.generated). */
export async function recordQrGenerated(ctx: ServiceContext, tag: repo.TagRow, qr: QrPayload): Promise<void> {
  await emit(ctx.db, eventOf(tag, 'qr.generated', { tag: tagSummary(tag), qr }, isoNow(ctx.clock)));
}

/** Tags created in a scope and period (analytics overview). */
export function countTagsCreated(ctx: ServiceContext, scope: Scope, range: { from: string; to: string }): Promise<number> {
  return countCreatedInScope(ctx.db, 'tags', scope, range);
}

/** Every tag a scope reaches, id and title (analytics export). */
export function tagsInScope(ctx: ServiceContext, scope: Scope) {
  return repo.tagsInScope(ctx.db, scope);
}
