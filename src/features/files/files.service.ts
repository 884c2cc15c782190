import type { ServiceContext } from '../../context.js';
import type { Readable } from 'node:stream';
import type { Config } from '../../config.js';
import { checkFields, failureReason, notFound, validationError } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { refusePrivateHost } from '../../lib/outbound.js';
import { countCreatedInScope, PLAN_LIMITS, requireAccess, requirePermission, scopeOf, type Actor, type Scope } from '../accounts/index.js';
import { emit, eventOf, type FilePayload } from '../events/index.js';
import { recordAudit } from '../audit/index.js';
import { baseUrlFor, bumpPageVersion, requireTag, requireWritable, tagSummary, type TagRow } from '../tags/index.js';
import { bodyError, fetchUrl, type FetchOptions } from './fetch-url.js';
import { extensionOf, ruleForMime, ruleForName, verifyContent, type TypeRule } from './file-types.js';
import * as repo from './files.repository.js';
import { ImageVariants, isTransformable, THUMBNAIL, type TransformRequest, type Variant } from './images.js';
import { fileTooLarge, ingest, storageExceeded, type IngestResult } from './ingest.js';
import { cleanExternalName, filenameFromContentDisposition, filenameFromUrl, requireValidDescription, requireValidName } from './names.js';
import { discardTemp, newTempPath, type BlobStorage, type BlobUpload } from '../../lib/blob-storage.js';
import { transaction } from '../../db/transaction.js';

export type FilesConfig = Pick<Config, 'publicBaseUrl' | 'sandboxBaseUrl' | 'dataDir' | 'allowPrivateNetworks' | 'outboundCaFile'>;

const FROM_URL_TIMEOUT_MS = 30_000;
const FROM_URL_MAX_REDIRECTS = 5;

/** Resized images, kept in the blob storage: one renderer (and its in-flight renders) per storage. */
const variants = new WeakMap<BlobStorage, ImageVariants>();

function imagesOf(ctx: ServiceContext): ImageVariants {
  let images = variants.get(ctx.blobs);
  if (!images) {
    images = new ImageVariants(ctx.blobs);
    variants.set(ctx.blobs, images);
  }
  return images;
}

function fetchOptionsOf(ctx: ServiceContext): FetchOptions {
  return {
    agents: ctx.agents,
    refuseHost: (url) => refusePrivateHost(url, ctx.config.allowPrivateNetworks),
    maxRedirects: FROM_URL_MAX_REDIRECTS,
    timeoutMs: FROM_URL_TIMEOUT_MS,
  };
}

/** The one API representation of a file, used by every endpoint and by file.* events. */
export function toFileView(config: FilesConfig, row: repo.FileRow): FilePayload {
  return {
    id: row.id,
    tag_id: row.tag_id,
    name: row.name,
    original_name: row.original_name,
    description: row.description,
    mime_type: row.mime_type,
    size: row.size,
    url: `${baseUrlFor(config, row.environment)}/v1/files/${row.id}/download`,
    download_count: row.download_count,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export type FileView = FilePayload;

/** Storage is counted per account: the organization for organization files, else the owner. */
function accountOf(row: { owner_id: string; organization_id: string | null }): string {
  return row.organization_id ?? row.owner_id;
}

// ---------------------------------------------------------------------------------------------
// Upload: stream to a temp file (and into the storage, where it takes bytes as they arrive)
// while counting and hashing → type rules → complete the storage's upload → reserve storage,
// row + event in one transaction. Any failure removes the temp file and what was stored.

/** Who uploads where, under which limits. Built before any byte of the body is read. */
export interface UploadTarget {
  /** Who uploads: the audit log's actor of file.uploaded. */
  actor: Actor;
  tag: TagRow;
  maxBytes: number;
  storageLimit: number;
  storageLeft: number;
}

/** The file storage a tag's files count against: its account's usage in its environment, under the actor's plan. */
export interface StorageUsage {
  usedBytes: number;
  limitBytes: number;
  /** The plan's maximum for one file. */
  maxFileBytes: number;
}

async function storageOf(ctx: ServiceContext, actor: Actor, tag: TagRow): Promise<StorageUsage> {
  const plan = PLAN_LIMITS[actor.plan];
  const usedBytes = await repo.storageUsed(ctx.db, accountOf(tag), tag.environment);
  return { usedBytes, limitBytes: plan.storageBytes, maxFileBytes: plan.maxFileBytes };
}

/** The storage used and allowed where an upload to this tag would go (the dashboard's meter). */
export async function storageUsage(ctx: ServiceContext, actor: Actor, { tagId }: { tagId: string }): Promise<StorageUsage> {
  requirePermission(actor, 'files:read');
  return storageOf(ctx, actor, await requireTag(ctx, actor, tagId));
}

export async function prepareUpload(
  ctx: ServiceContext,
  actor: Actor,
  { tagId: tagIdOrShortId }: { tagId: string },
): Promise<UploadTarget> {
  requirePermission(actor, 'files:write');
  const tag = await requireTag(ctx, actor, tagIdOrShortId);
  requireWritable(tag, actor);
  const { usedBytes, limitBytes, maxFileBytes } = await storageOf(ctx, actor, tag);
  if (usedBytes >= limitBytes) throw storageExceeded();
  return { actor, tag, maxBytes: maxFileBytes, storageLimit: limitBytes, storageLeft: limitBytes - usedBytes };
}

/** A file received and checked, waiting in a temp file (and the storage) to be committed or discarded. */
export interface ReceivedFile extends IngestResult {
  /** The file's id, its key in the storage. */
  id: string;
  tempPath: string;
  upload: BlobUpload;
  originalName: string;
  rule: TypeRule;
}

/** The name a client sent with a file, as original_name: its last path segment. */
export function originalNameOf(filename: string | undefined): string {
  const name = (filename ?? '').split(/[/\\]/).pop() ?? '';
  if (!name) throw validationError('file', 'file must be sent with a file name (filename in its Content-Disposition)');
  return requireValidName(name, 'file');
}

/** The rule for an incoming file, decided from its name alone (blocked types fail at once). */
export function ruleForUpload(originalName: string): TypeRule {
  return ruleForName(originalName);
}

/**
 * Streams `source` into a temp file, and into the storage's upload where it takes bytes as they
 * arrive, under the target's limits, and checks its type. Both are given up again when
 * anything fails.
 */
export async function receiveFile(
  ctx: ServiceContext,
  target: UploadTarget,
  originalName: string,
  rule: TypeRule,
  source: Readable,
): Promise<ReceivedFile> {
  // The id is the storage key, so it is chosen before the first byte reaches the storage.
  const id = newId('file');
  const tempPath = await newTempPath(ctx.config.dataDir);
  const upload = ctx.blobs.openUpload(id);
  try {
    const limits = { maxBytes: target.maxBytes, storageLeft: target.storageLeft, text: rule.check.kind === 'text' };
    const facts = await ingest(source, tempPath, limits, upload.sink);
    await verifyContent(rule, tempPath, facts);
    return { ...facts, id, tempPath, upload, originalName, rule };
  } catch (error) {
    await giveUp(ctx, upload, tempPath);
    throw error;
  }
}

/** Gives up a received file that was not committed; after a commit it does nothing. */
export async function discardReceived(ctx: ServiceContext, received: ReceivedFile | undefined): Promise<void> {
  if (received) await giveUp(ctx, received.upload, received.tempPath);
}

/**
 * Removes the temp file and whatever the upload stored. A store that cannot remove it now is
 * not the request's failure: the leftovers sweep removes objects without a row later.
 */
async function giveUp(ctx: ServiceContext, upload: BlobUpload, tempPath: string): Promise<void> {
  try {
    await discardTemp(tempPath);
  } finally {
    await upload.abort().catch((error: unknown) => {
      ctx.log.warn({ reason: failureReason(error) }, `${ctx.blobs.label} could not remove a failed upload; the leftovers sweep will`);
    });
  }
}

export interface FileFields {
  name?: string;
  description?: string | null;
}

/** Completes the stored upload (the blob in place), then reserves storage and writes the row and file.uploaded at once. */
export async function commitUpload(
  ctx: ServiceContext,
  target: UploadTarget,
  received: ReceivedFile,
  fields: FileFields,
): Promise<FileView> {
  const name = fields.name !== undefined ? requireValidName(fields.name, 'name') : received.originalName;
  const description = fields.description == null ? null : requireValidDescription(fields.description);
  const { tag } = target;
  const now = isoNow(ctx.clock);
  const row: repo.FileRow = {
    id: received.id,
    tag_id: tag.id,
    environment: tag.environment,
    owner_id: tag.owner_id,
    organization_id: tag.organization_id,
    name,
    original_name: received.originalName,
    description,
    mime_type: received.rule.mime,
    size: received.size,
    sha256: received.sha256,
    download_count: 0,
    created_at: now,
    updated_at: now,
  };
  const view = toFileView(ctx.config, row);
  await received.upload.complete(received.tempPath);
  try {
    await transaction(ctx.db, async (trx) => {
      // The tag's row first: the order of locks.ts (a tag's deletion locks it, then storage).
      await bumpPageVersion(trx, tag.id);
      if (!(await repo.reserveStorage(trx, accountOf(tag), tag.environment, row.size, target.storageLimit, now))) throw storageExceeded();
      await repo.insertFile(trx, row);
      await emit(trx, eventOf(tag, 'file.uploaded', { tag: tagSummary(tag), file: view }, now));
      await recordAudit(ctx, trx, target.actor, { action: 'file.uploaded', targetId: row.id, environment: row.environment });
    });
  } catch (error) {
    await ctx.blobs.delete(row.id);
    throw error;
  }
  return view;
}

// ---------------------------------------------------------------------------------------------
// from-url

export interface FromUrlInput {
  url: string;
  name?: string;
  description?: string | null;
}

/** A usable name for a fetched file, with an allowed extension whenever that can be known. */
function nameForFetched(dispositionName: string | undefined, url: URL, contentType: string | undefined): { name: string; rule: TypeRule } {
  if (dispositionName !== undefined) {
    // The server named the file: its extension decides, as for an upload.
    const name = cleanExternalName(dispositionName);
    if (name) return { name, rule: ruleForName(name) };
  }
  const fromPath = cleanExternalName(filenameFromUrl(url));
  const ext = extensionOf(fromPath);
  if (ext) {
    try {
      return { name: fromPath, rule: ruleForName(fromPath) };
    } catch (error) {
      // A blocked extension stays blocked; an unknown one (`report.php`) may be a script path.
      if (/Executables/.test((error as Error).message)) throw error;
    }
  }
  // No usable extension in the path: the declared Content-Type may supply one.
  const declared = ruleForMime((contentType ?? '').split(';')[0]!.trim().toLowerCase());
  if (declared) {
    const base = fromPath || 'download';
    return { name: `${base}.${declared.ext}`.slice(-255), rule: declared };
  }
  return { name: fromPath, rule: ruleForName(fromPath || 'download') };
}

export async function uploadFromUrl(
  ctx: ServiceContext,
  actor: Actor,
  { tagId: tagIdOrShortId, ...input }: { tagId: string } & FromUrlInput,
): Promise<FileView> {
  requirePermission(actor, 'files:write');
  if (input.name !== undefined) requireValidName(input.name, 'name');
  if (input.description != null) requireValidDescription(input.description);
  const target = await prepareUpload(ctx, actor, { tagId: tagIdOrShortId });
  const fetched = await fetchUrl(input.url, fetchOptionsOf(ctx));
  let received: ReceivedFile | undefined;
  try {
    const declaredLength = Number(fetched.response.headers['content-length']);
    if (Number.isFinite(declaredLength) && declaredLength > target.maxBytes) throw fileTooLarge(target.maxBytes);
    const { name, rule } = nameForFetched(
      filenameFromContentDisposition(fetched.response.headers['content-disposition']),
      fetched.url,
      fetched.response.headers['content-type'],
    );
    try {
      received = await receiveFile(ctx, target, name, rule, fetched.response);
    } catch (error) {
      throw bodyError(error, fetched, FROM_URL_TIMEOUT_MS);
    }
    fetched.done();
    return await commitUpload(ctx, target, received, { name: input.name, description: input.description });
  } catch (error) {
    fetched.abort();
    throw error;
  } finally {
    await discardReceived(ctx, received);
  }
}

// ---------------------------------------------------------------------------------------------
// Reading, changing, deleting

/** 404 when no such file in the caller's environment, 403 when it is another account's. */
export async function requireFile(ctx: ServiceContext, actor: Actor, { id: fileId }: { id: string }): Promise<repo.FileRow> {
  const row = /^file_[0-9a-z]{26}$/.test(fileId) ? await repo.findFileById(ctx.db, fileId) : undefined;
  return requireAccess(row, scopeOf(actor), 'File');
}

export async function getFile(ctx: ServiceContext, actor: Actor, input: { id: string }): Promise<FileView> {
  requirePermission(actor, 'files:read');
  return toFileView(ctx.config, await requireFile(ctx, actor, input));
}

export async function listFiles(
  ctx: ServiceContext,
  actor: Actor,
  { tagId: tagIdOrShortId, limit, offset }: { tagId: string; limit: number; offset: number },
) {
  requirePermission(actor, 'files:read');
  const tag = await requireTag(ctx, actor, tagIdOrShortId);
  const { total, rows } = await repo.listFilesOfTag(ctx.db, tag.id, limit, offset);
  return { total, files: rows.map((row) => toFileView(ctx.config, row)) };
}

/** The file and its tag, for changes: the tag's write permission applies to its files. */
async function requireWritableFile(ctx: ServiceContext, actor: Actor, fileId: string) {
  const file = await requireFile(ctx, actor, { id: fileId });
  const tag = await requireTag(ctx, actor, file.tag_id);
  requireWritable(tag, actor);
  return { file, tag };
}

export async function updateFile(
  ctx: ServiceContext,
  actor: Actor,
  { id: fileId, ...input }: { id: string } & FileFields,
): Promise<FileView> {
  requirePermission(actor, 'files:write');
  const checked = await checkFields({
    name: () => (input.name === undefined ? undefined : requireValidName(input.name, 'name')),
    description: () => (input.description == null ? input.description : requireValidDescription(input.description)),
  });
  const changes: { name?: string; description?: string | null } = {};
  if (checked.name !== undefined) changes.name = checked.name;
  if (checked.description !== undefined) changes.description = checked.description;
  const { file } = await requireWritableFile(ctx, actor, fileId);
  if (Object.keys(changes).length === 0) return toFileView(ctx.config, file);
  const updated = { ...file, ...changes, updated_at: isoNow(ctx.clock) };
  await transaction(ctx.db, async (trx) => {
    await repo.updateFileRow(trx, file.id, { ...changes, updated_at: updated.updated_at });
    await bumpPageVersion(trx, file.tag_id);
    await recordAudit(ctx, trx, actor, { action: 'file.updated', targetId: file.id, environment: file.environment });
  });
  return toFileView(ctx.config, updated);
}

export async function deleteFile(ctx: ServiceContext, actor: Actor, { id: fileId }: { id: string }): Promise<void> {
  requirePermission(actor, 'files:write');
  const { file, tag } = await requireWritableFile(ctx, actor, fileId);
  const now = isoNow(ctx.clock);
  const deleted = await transaction(ctx.db, async (trx) => {
    await bumpPageVersion(trx, file.tag_id);
    // A concurrent delete got there first: nothing to release, no second event.
    if (!(await repo.deleteFileRow(trx, ctx, file.id))) return false;
    await repo.releaseStorage(trx, accountOf(file), file.environment, file.size, now);
    await emit(trx, eventOf(tag, 'file.deleted', { tag: tagSummary(tag), file: toFileView(ctx.config, file) }, now));
    await recordAudit(ctx, trx, actor, { action: 'file.deleted', targetId: file.id, environment: file.environment });
    return true;
  });
  if (!deleted) throw notFound('File');
}

// ---------------------------------------------------------------------------------------------
// Downloads and images

export interface Transform extends TransformRequest {
  /** The query parameters given, in order, to name in errors. */
  given: string[];
}

/** The rendered variant for a download with transform parameters (400 for non-images). */
export async function transformedVariant(ctx: ServiceContext, file: repo.FileRow, transform: Transform): Promise<Variant> {
  if (!isTransformable(file.mime_type)) {
    const field = transform.given[0] ?? 'file_id';
    throw validationError(field, `${field} applies to images only; this file is ${file.mime_type}`);
  }
  return imagesOf(ctx).variant(file, transform);
}

export async function thumbnail(ctx: ServiceContext, file: repo.FileRow, request: TransformRequest): Promise<Variant> {
  if (!isTransformable(file.mime_type))
    throw validationError('file_id', `Thumbnails exist for images only; this file is ${file.mime_type}`);
  return imagesOf(ctx).variant(file, {
    width: request.width ?? THUMBNAIL.width,
    height: request.height ?? THUMBNAIL.height,
    quality: request.quality,
    format: request.format ?? THUMBNAIL.format,
  });
}

/** Counts a download that was sent whole (called once the response has finished). */
export async function recordDownload(ctx: ServiceContext, fileId: string): Promise<void> {
  await repo.incrementDownloadCount(ctx.db, fileId);
}

/** A file of `tag`, for its page (`/t/{short_id}/files/{id}`); undefined for any other file. */
export async function pageFile(ctx: ServiceContext, tag: TagRow, fileId: string): Promise<repo.FileRow | undefined> {
  const file = /^file_[0-9a-z]{26}$/.test(fileId) ? await repo.findFileById(ctx.db, fileId) : undefined;
  return file?.tag_id === tag.id ? file : undefined;
}

/** A file as the public page lists it. */
export interface PageFile {
  id: string;
  name: string;
  mime_type: string;
  size: number;
}

/** The most files a page lists; the rest stay reachable through the API. */
export const MAX_PAGE_FILES = 100;

/** The files the tag's public page lists, oldest first. */
export function pageFiles(ctx: ServiceContext, tagId: string): Promise<PageFile[]> {
  return repo.listPageFilesOfTag(ctx.db, tagId, MAX_PAGE_FILES);
}

/** Files uploaded in a scope and period (analytics overview). */
export function countFilesUploaded(ctx: ServiceContext, scope: Scope, range: { from: string; to: string }): Promise<number> {
  return countCreatedInScope(ctx.db, 'files', scope, range);
}
