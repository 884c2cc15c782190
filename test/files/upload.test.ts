import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { expectError, PUBLIC_BASE_URL, request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { createTag, filesUnder, multipart, sha256, upload, uploadParts } from './helpers.js';
import { allowedSamples, cfb, EXPECTED_MIME, image, pdf, zip } from './samples.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('file uploads', () => {
  const t = useApp();
  const alice = useAccount(t);
  let tag: { id: string; short_id: string };
  beforeAll(async () => {
    tag = await createTag(t, alice.key);
  });

  it('stores every allowed type and returns the same bytes, with the detected type', async () => {
    const samples = await allowedSamples();
    for (const [filename, content] of Object.entries(samples)) {
      const response = await upload(t, alice.key, tag.id, filename, content);
      expect(response.status, `${filename}: ${response.text}`).toBe(201);
      const file = response.body.data;
      const ext = filename.split('.').pop()!;
      expect(file.mime_type, filename).toBe(EXPECTED_MIME[ext]);
      expect(file.size).toBe(content.length);
      expect(file.name).toBe(filename);
      expect(file.original_name).toBe(filename);
      const download = await request(t, 'GET', `/v1/files/${file.id}/download`, { key: alice.key });
      expect(download.status, filename).toBe(200);
      expect(sha256(download.raw), filename).toBe(sha256(content));
      expect(download.headers.get('content-type')!.split(';')[0]).toBe(EXPECTED_MIME[ext]);
    }
  });

  it('returns every field of the file object', async () => {
    const response = await upload(t, alice.key, tag.id, 'report.pdf', pdf(), { name: 'Quarterly report.pdf', description: 'Q3 numbers' });
    expect(response.status).toBe(201);
    const file = response.body.data;
    expect(Object.keys(file).sort()).toEqual(
      [
        'created_at',
        'description',
        'download_count',
        'id',
        'mime_type',
        'name',
        'original_name',
        'size',
        'tag_id',
        'updated_at',
        'url',
      ].sort(),
    );
    expect(file.id).toMatch(/^file_[0-9a-z]{26}$/);
    expect(file).toMatchObject({
      tag_id: tag.id,
      name: 'Quarterly report.pdf',
      original_name: 'report.pdf',
      description: 'Q3 numbers',
      mime_type: 'application/pdf',
      size: pdf().length,
      url: `${PUBLIC_BASE_URL}/v1/files/${file.id}/download`,
      download_count: 0,
    });
    expect(file.created_at).toMatch(ISO);
    expect(file.updated_at).toBe(file.created_at);
    const fetched = await request(t, 'GET', `/v1/files/${file.id}`, { key: alice.key });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual({ success: true, data: file });
  });

  it('accepts the parts in any order and the tag by short id', async () => {
    const response = await uploadParts(t, alice.key, tag.short_id, [
      { name: 'description', value: 'first' },
      { name: 'file', filename: 'a.txt', content: Buffer.from('hello') },
      { name: 'name', value: 'last.txt' },
    ]);
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ name: 'last.txt', description: 'first', tag_id: tag.id });
  });

  it('ignores the client-declared type and a client path in the file name', async () => {
    const response = await uploadParts(t, alice.key, tag.id, [
      { name: 'file', filename: 'C:\\Users\\me\\pic.png', content: await image('png'), contentType: 'application/x-msdownload' },
    ]);
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ name: 'pic.png', original_name: 'pic.png', mime_type: 'image/png' });
  });

  it.each([
    ['virus.exe', Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1')],
    ['Thing.app', Buffer.from('binary')],
    ['install.sh', Buffer.from('#!/bin/sh\necho hi\n')],
    ['app.js', Buffer.from('console.log(1)\n')],
    ['tool.py', Buffer.from('print(1)\n')],
    ['gem.rb', Buffer.from('puts 1\n')],
    ['INSTALL.SH', Buffer.from('#!/bin/sh\n')],
    ['page.html', Buffer.from('<html></html>')],
    ['noextension', Buffer.from('hello')],
    ['movie.mp4', Buffer.from('hello')],
    // Content that contradicts the extension:
    ['fake.pdf', Buffer.from('just text')],
    ['fake.png', Buffer.from('%PDF-1.4\n')],
    ['pdf-as.jpg', pdf()],
    ['exe-as.pdf', Buffer.concat([Buffer.from('MZ', 'latin1'), Buffer.alloc(200)])],
    ['binary.txt', Buffer.from([0xff, 0xfe, 0x00, 0x41, 0x00])],
    ['latin1.csv', Buffer.from('caf\xe9,1\n', 'latin1')],
    ['nul.txt', Buffer.from('a\u0000b')],
    ['bad.json', Buffer.from('not json')],
    ['bad.xml', Buffer.from('plain text')],
    ['bad.svg', Buffer.from('<?xml version="1.0"?><html/>')],
    ['bad.rtf', Buffer.from('plain text')],
    ['zip-as.docx', zip({ 'a.txt': 'x' })],
    ['text-as.zip', Buffer.from('PK but not really')],
    ['png-as.doc', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
    ['sfx.zip', Buffer.concat([Buffer.from('MZ', 'latin1'), Buffer.alloc(100), zip({ 'a.txt': 'x' })])],
    ['not-rar.rar', cfb()],
    // Executables inside archives (scripts are fine there, see the allowed samples):
    ['with-exe.zip', zip({ 'readme.txt': 'x', 'bin/setup.exe': 'MZ' })],
    ['with-sh.zip', zip({ 'run.sh': '#!/bin/sh' })],
    ['with-app.zip', zip({ 'Foo.app/Contents/Info.plist': '<plist/>' })],
    ['nested.zip', zip({ 'inner.zip': zip({ 'deep/evil.EXE': 'MZ' }) })],
    // Windows drops trailing dots and spaces when it extracts: these are evil.exe there.
    ['trailing-dot.zip', zip({ 'evil.exe.': 'MZ' })],
    ['trailing-space.zip', zip({ 'bin/evil.exe ': 'MZ' })],
    // The central directory says .txt; the local header, which streaming extractors read, .exe.
    ['two-names.zip', withFirstLocalName(zip({ 'bin/evil.txt': 'MZ' }), 'bin/evil.exe')],
    [
      'with-exe.docx',
      zip({
        '[Content_Types].xml':
          '<Types><Override ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
        'word/x.exe': 'MZ',
      }),
    ],
  ])('refuses %s with 415 unsupported_file_type and keeps nothing', async (filename, content) => {
    const response = await upload(t, alice.key, tag.id, filename, content);
    expectError(response, 415, 'unsupported_file_type');
    expect(filesUnder(join(t.config.dataDir, 'files', 'tmp'))).toEqual([]);
  });

  it('accepts scripts inside a zip, and a nested zip without executables', async () => {
    const nested = zip({ 'inner.zip': zip({ 'run.py': 'print(1)', 'a.rb': 'puts 1' }) });
    expect((await upload(t, alice.key, tag.id, 'nested-ok.zip', nested)).status).toBe(201);
  });

  it('validates name, description and parts', async () => {
    const file = { name: 'file', filename: 'a.txt', content: Buffer.from('x') };
    expectError(await uploadParts(t, alice.key, tag.id, [{ name: 'name', value: 'x' }]), 400, 'validation_error', 'file');
    expectError(await uploadParts(t, alice.key, tag.id, [file, { name: 'name', value: 'a/b.txt' }]), 400, 'validation_error', 'name');
    expectError(await uploadParts(t, alice.key, tag.id, [file, { name: 'name', value: 'a\\b.txt' }]), 400, 'validation_error', 'name');
    expectError(await uploadParts(t, alice.key, tag.id, [file, { name: 'name', value: 'tab\there.txt' }]), 400, 'validation_error', 'name');
    expectError(await uploadParts(t, alice.key, tag.id, [file, { name: 'name', value: 'x'.repeat(256) }]), 400, 'validation_error', 'name');
    expectError(await uploadParts(t, alice.key, tag.id, [file, { name: 'name', value: '' }]), 400, 'validation_error', 'name');
    expectError(
      await uploadParts(t, alice.key, tag.id, [file, { name: 'description', value: 'd'.repeat(2001) }]),
      400,
      'validation_error',
      'description',
    );
    expectError(await uploadParts(t, alice.key, tag.id, [file, { name: 'colour', value: 'red' }]), 400, 'validation_error', 'colour');
    expectError(await uploadParts(t, alice.key, tag.id, [{ ...file, name: 'upload' }]), 400, 'validation_error', 'upload');
    expectError(await uploadParts(t, alice.key, tag.id, [file, { ...file, filename: 'b.txt' }]), 400, 'validation_error', 'file');
    expectError(await uploadParts(t, alice.key, tag.id, [{ ...file, filename: '' }]), 400, 'validation_error', 'file');
    expect((await uploadParts(t, alice.key, tag.id, [file, { name: 'name', value: 'x'.repeat(255) }])).status).toBe(201);
    // Characters, not UTF-16 units: 251 emoji and ".txt" are 255.
    expect((await uploadParts(t, alice.key, tag.id, [file, { name: 'name', value: `${'😀'.repeat(251)}.txt` }])).status).toBe(201);
    const json = await request(t, 'POST', `/v1/tags/${tag.id}/files`, { key: alice.key, body: { file: 'x' } });
    expectError(json, 415, 'unsupported_media_type');
    const { body } = multipart([file]);
    const broken = await request(t, 'POST', `/v1/tags/${tag.id}/files`, {
      key: alice.key,
      rawBody: body.subarray(0, body.length - 20),
      headers: { 'content-type': 'multipart/form-data; boundary=----nope' },
    });
    expect(broken.status).toBe(400);
    expect(filesUnder(join(t.config.dataDir, 'files', 'tmp'))).toEqual([]);
  });

  it('answers 404 for an unknown tag', async () => {
    expectError(await upload(t, alice.key, 'tag_01m802r69tb18dkd20f3k82y80', 'a.txt', Buffer.from('x')), 404, 'not_found');
  });
});

/** The zip with its first entry's local-header name replaced (same length), its central name kept. */
function withFirstLocalName(archive: Buffer, name: string): Buffer {
  const patched = Buffer.from(archive);
  const length = patched.readUInt16LE(26);
  if (Buffer.byteLength(name) !== length) throw new Error('the new name must be as long as the old one');
  patched.write(name, 30, 'utf8');
  return patched;
}
