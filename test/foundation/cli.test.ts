import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { signInHttp } from '../dashboard/support.js';
import { expectError, request, runCli } from '../helpers/app.js';
import { describeOnce, useApp } from '../helpers/harness.js';

const PASSWORD = 'long enough password';

/**
 * The command line against the same database as a running server, as an operator uses it. A
 * test here starts up to seven processes, each loading the whole service and some hashing a
 * password: about 2 s each on a busy CI machine, so more than the default 30 s in all.
 */
describe('tagsvc command line', { timeout: 120_000 }, () => {
  const t = useApp();
  const email = 'ops@example.com';

  async function cli(...args: string[]) {
    const result = await runCli([...args, '--json'], t.env, PASSWORD);
    if (result.code !== 0) throw new Error(`tagsvc ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  }

  beforeAll(async () => {
    await cli('user', 'create', '--email', email, '--plan', 'pro');
  });

  it('creates a key and prints exactly the documented fields', async () => {
    const created = await cli('key', 'create', '--email', email, '--name', 'deploy', '--permissions', 'tags:read,files:read');
    expect(Object.keys(created).sort()).toEqual(['environment', 'id', 'key', 'name', 'permissions', 'prefix', 'scope']);
    expect(created.id).toMatch(/^key_/);
    expect(created.key).toMatch(/^svc_live_[0-9A-Za-z]{38}$/);
    expect(created.prefix).toBe(created.key.slice(0, 12));
    expect(created).toMatchObject({ name: 'deploy', permissions: ['tags:read', 'files:read'], environment: 'live', scope: 'personal' });
    const me = await request(t, 'GET', '/v1/me', { key: created.key });
    expect(me.status).toBe(200);
    expect(me.body.data.key.permissions).toEqual(['tags:read', 'files:read']);
  });

  it('creates test keys and all-permission keys by default', async () => {
    const created = await cli('key', 'create', '--email', email, '--name', 'sandbox', '--test');
    expect(created.key).toMatch(/^svc_test_/);
    expect(created.environment).toBe('test');
    expect(created.permissions).toHaveLength(9);
  });

  it('disable takes effect on the next request, enable restores the key', async () => {
    const created = await cli('key', 'create', '--email', email, '--name', 'to-disable');
    expect((await request(t, 'GET', '/v1/me', { key: created.key })).status).toBe(200);
    const disabled = await cli('key', 'disable', '--id', created.id);
    expect(disabled.enabled).toBe(false);
    expectError(await request(t, 'GET', '/v1/me', { key: created.key }), 401, 'unauthorized');
    await cli('key', 'enable', '--id', created.id);
    expect((await request(t, 'GET', '/v1/me', { key: created.key })).status).toBe(200);
  });

  it('regenerate prints a new key and the old value stops at once', async () => {
    const created = await cli('key', 'create', '--email', email, '--name', 'to-rotate');
    expect((await request(t, 'GET', '/v1/me', { key: created.key })).status).toBe(200);
    const rotated = await cli('key', 'regenerate', '--id', created.id);
    expect(rotated.key).toMatch(/^svc_live_/);
    expect(rotated.key).not.toBe(created.key);
    expectError(await request(t, 'GET', '/v1/me', { key: created.key }), 401, 'unauthorized');
    expect((await request(t, 'GET', '/v1/me', { key: rotated.key })).body.data.key.id).toBe(created.id);
  });

  it('delete removes the key for good', async () => {
    const created = await cli('key', 'create', '--email', email, '--name', 'to-delete');
    await cli('key', 'delete', '--id', created.id);
    expectError(await request(t, 'GET', '/v1/me', { key: created.key }), 401, 'unauthorized');
    const failed = await runCli(['key', 'enable', '--id', created.id], t.env);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/not found/);
  });

  it('lists keys by display prefix, never by value or hash', async () => {
    const created = await cli('key', 'create', '--email', email, '--name', 'listed', '--ip', '203.0.113.0/24,2001:db8::/32');
    const listed = await cli('key', 'list', '--email', email);
    const entry = listed.find((k: { id: string }) => k.id === created.id);
    expect(entry).toMatchObject({
      name: 'listed',
      prefix: created.prefix,
      enabled: true,
      ip_allowlist: ['203.0.113.0/24', '2001:db8::/32'],
    });
    const text = JSON.stringify(listed);
    expect(text).not.toContain(created.key);
    expect(text).not.toMatch(/hash/);
  });

  it('creates organizations, adds members and lets only owners and admins create their keys', async () => {
    await cli('user', 'create', '--email', 'admin@example.com', '--plan', 'pro');
    await cli('user', 'create', '--email', 'member@example.com', '--plan', 'pro');
    const org = await cli('org', 'create', '--name', 'Acme', '--owner', email, '--plan', 'enterprise');
    expect(org).toMatchObject({ name: 'Acme', plan: 'enterprise', owner: { email } });
    await cli('org', 'add-member', '--org', org.id, '--email', 'admin@example.com', '--role', 'admin');
    await cli('org', 'add-member', '--org', org.id, '--email', 'member@example.com', '--role', 'editor');
    const byAdmin = await cli('key', 'create', '--email', 'admin@example.com', '--name', 'org key', '--org', org.id);
    expect(byAdmin.scope).toBe('organization');
    const me = await request(t, 'GET', '/v1/me', { key: byAdmin.key });
    expect(me.body.data.organization).toEqual({ id: org.id, name: 'Acme' });
    expect(me.body.data.plan).toBe('enterprise');
    const byMember = await runCli(['key', 'create', '--email', 'member@example.com', '--name', 'nope', '--org', org.id, '--json'], t.env);
    expect(byMember.code).toBe(1);
    expect(JSON.parse(byMember.stderr).error.code).toBe('forbidden');
  });

  it('rejects bad input with exit code 1 and names the field', async () => {
    const badPermission = await runCli(['key', 'create', '--email', email, '--name', 'x', '--permissions', 'tags:fly', '--json'], t.env);
    expect(badPermission.code).toBe(1);
    expect(JSON.parse(badPermission.stderr).error).toMatchObject({ code: 'validation_error', field: 'permissions' });
    const badIp = await runCli(['key', 'create', '--email', email, '--name', 'x', '--ip', '300.1.1.1', '--json'], t.env);
    expect(JSON.parse(badIp.stderr).error.field).toBe('ip');
    const badPlan = await runCli(['user', 'create', '--email', 'p@example.com', '--plan', 'gold', '--json'], t.env, PASSWORD);
    expect(JSON.parse(badPlan.stderr).error.field).toBe('plan');
    const duplicate = await runCli(['user', 'create', '--email', email, '--plan', 'pro', '--json'], t.env, PASSWORD);
    expect(JSON.parse(duplicate.stderr).error.field).toBe('email');
    const short = await runCli(['user', 'create', '--email', 's@example.com', '--plan', 'pro', '--json'], t.env, 'short\n');
    expect(JSON.parse(short.stderr).error).toMatchObject({ code: 'validation_error', field: 'password' });
  });

  it('answers misuse with exit code 2, the problem and where to find help', async () => {
    const unknown = await runCli(['key', 'fly'], t.env);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toBe(`tagsvc: unknown command 'fly'\nRun "tagsvc key --help" for usage.\n`);
    const unknownTop = await runCli(['fly'], t.env);
    expect(unknownTop.code).toBe(2);
    expect(unknownTop.stderr).toContain(`unknown command 'fly'`);
    const missing = await runCli(['key', 'create', '--email', email], t.env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`required option '--name <name>' not specified`);
    expect(missing.stderr).toContain('Run "tagsvc key create --help" for usage.');
    const unknownFlag = await runCli(['migrate', '--fast'], t.env);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toContain(`unknown option '--fast'`);
    const positional = await runCli(['migrate', 'now'], t.env);
    expect(positional.code).toBe(2);
    const group = await runCli(['key'], t.env);
    expect(group.code).toBe(2);
    expect(group.stderr).toContain('"key" needs a subcommand: create, list, disable, enable, regenerate, delete');
  });

  it('migrate is idempotent', async () => {
    expect(await cli('migrate')).toEqual({ applied: [] });
  });
});

/** Every command and the options its help must list (besides --help and the global --json). */
const COMMANDS: Record<string, string[]> = {
  serve: ['--no-worker'],
  worker: [],
  migrate: [],
  'user create': ['--email <email>', '--plan <plan>', '--password-stdin'],
  'user set-password': ['--email <email>', '--password-stdin'],
  'user disable': ['--email <email>'],
  'user enable': ['--email <email>'],
  'org create': ['--name <name>', '--owner <email>', '--plan <plan>'],
  'org add-member': ['--org <id>', '--email <email>', '--role <role>'],
  'key create': ['--email <email>', '--name <name>', '--permissions <list>', '--test', '--org <id>', '--ip <list>'],
  'key list': ['--email <email>'],
  'key disable': ['--id <id>'],
  'key enable': ['--id <id>'],
  'key regenerate': ['--id <id>'],
  'key delete': ['--id <id>'],
};

describeOnce('tagsvc help and version', () => {
  it('prints help for every command, with --help and with `tagsvc help <command>`', async () => {
    await Promise.all(
      Object.entries(COMMANDS).map(async ([command, options]) => {
        const words = command.split(' ');
        const viaFlag = await runCli([...words, '--help'], {});
        expect(viaFlag, command).toMatchObject({ code: 0, stderr: '' });
        expect(viaFlag.stdout).toMatch(new RegExp(`^Usage: tagsvc ${command} \\[options\\]\\n`));
        for (const option of [...options, '--json', '-h, --help']) expect(viaFlag.stdout, command).toContain(option);
        expect(viaFlag.stdout, command).not.toMatch(/--password\b(?!-stdin)/);
        const viaHelp = await runCli(['help', ...words], {});
        expect(viaHelp, command).toEqual(viaFlag);
      }),
    );
  });

  it('lists every command in the top-level help, which `tagsvc`, `tagsvc help` and --help all print', async () => {
    const outputs = await Promise.all([[], ['help'], ['--help']].map((args) => runCli(args, {})));
    for (const output of outputs) expect(output).toEqual(outputs[0]);
    expect(outputs[0]).toMatchObject({ code: 0, stderr: '' });
    for (const group of ['serve', 'worker', 'migrate', 'user', 'org', 'key'])
      expect(outputs[0]!.stdout).toMatch(new RegExp(`^  ${group}\\b`, 'm'));
    const keyHelp = await runCli(['key', '--help'], {});
    for (const sub of ['create', 'list', 'disable', 'enable', 'regenerate', 'delete'])
      expect(keyHelp.stdout).toMatch(new RegExp(`^  ${sub}\\b`, 'm'));
  });

  it('--version prints the version in package.json', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) expect(await runCli([flag], {})).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describeOnce('tagsvc passwords', () => {
  const t = useApp();

  it('reads the password from piped standard input, with or without --password-stdin, less one newline', async () => {
    const piped = await runCli(
      ['user', 'create', '--email', 'piped@example.com', '--plan', 'pro', '--json'],
      t.env,
      'piped password one\n',
    );
    expect(piped.code, piped.stderr).toBe(0);
    await signInHttp(t, 'piped@example.com', 'piped password one');
    const flagged = await runCli(
      ['user', 'create', '--email', 'flagged@example.com', '--plan', 'pro', '--password-stdin'],
      t.env,
      'two words  with spaces\r\n',
    );
    expect(flagged.code, flagged.stderr).toBe(0);
    expect(flagged.stdout).toContain('email: flagged@example.com');
    await signInHttp(t, 'flagged@example.com', 'two words  with spaces');
    const reset = await runCli(['user', 'set-password', '--email', 'piped@example.com', '--password-stdin'], t.env, 'the reset password');
    expect(reset.code, reset.stderr).toBe(0);
    await signInHttp(t, 'piped@example.com', 'the reset password');
  });

  it('refuses a password in the arguments, says what to do instead, and creates nothing', async () => {
    for (const args of [
      ['user', 'create', '--email', 'argv@example.com', '--plan', 'pro', '--password', 'in the process list'],
      ['user', 'set-password', '--email', 'piped@example.com', '--password=in the process list'],
    ]) {
      const refused = await runCli(args, t.env, 'from stdin instead');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('--password is not accepted');
      expect(refused.stderr).toContain('--password-stdin');
      expect(refused.stderr).not.toContain('in the process list');
    }
    const listed = await runCli(['key', 'list', '--email', 'argv@example.com', '--json'], t.env);
    expect(JSON.parse(listed.stderr).error.code).toBe('not_found');
  });

  it('without a terminal and with nothing piped, fails with a clear message instead of waiting', async () => {
    const empty = await runCli(['user', 'create', '--email', 'empty@example.com', '--plan', 'pro'], t.env);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no password on standard input');
  });

  /**
   * In a terminal (a pseudo-terminal made by util-linux `script`) the command asks twice and
   * nothing typed is echoed: the password never appears in what the terminal shows.
   */
  function inTerminal(args: string[], answers: string[]): Promise<{ code: number | null; screen: string }> {
    const command = ['node', 'bin/tagsvc', ...args].map((word) => `'${word}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...process.env, ...t.env, SHELL: '/bin/sh' } });
    let screen = '';
    let answered = 0;
    const prompts = ['Password: ', 'Repeat the password: '];
    child.stdout.on('data', (chunk: Buffer) => {
      screen += chunk.toString();
      // Type each answer only once its prompt shows: the terminal is then in no-echo mode.
      while (answered < answers.length && screen.includes(prompts[answered]!)) {
        child.stdin.write(`${answers[answered]}\r`);
        answered += 1;
      }
    });
    return new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, screen }));
    });
  }

  it('asks for the password twice in a terminal without echoing it', async () => {
    const typed = 'typed in a terminal';
    const created = await inTerminal(['user', 'create', '--email', 'tty@example.com', '--plan', 'pro', '--json'], [typed, typed]);
    expect(created.code, created.screen).toBe(0);
    expect(created.screen).toContain('Password: ');
    expect(created.screen).toContain('Repeat the password: ');
    expect(created.screen).not.toContain(typed);
    expect(created.screen).toContain('"email":"tty@example.com"');
    await signInHttp(t, 'tty@example.com', typed);

    const differ = await inTerminal(['user', 'create', '--email', 'tty2@example.com', '--plan', 'pro'], ['one password', 'another one']);
    expect(differ.code).toBe(2);
    expect(differ.screen).toContain('the two passwords differ');
  });
});

describeOnce('tagsvc --json', () => {
  const t = useApp();
  beforeAll(async () => {
    await runCli(['user', 'create', '--email', 'json@example.com', '--plan', 'pro'], t.env, PASSWORD);
  });

  /** A failure: nothing on stdout, one line on stderr that is exactly {"error":{code,message[,field]}}. */
  function expectJsonError(result: { code: number | null; stdout: string; stderr: string }, exitCode: number, code: string) {
    expect(result.code, result.stderr).toBe(exitCode);
    expect(result.stdout).toBe('');
    expect(result.stderr.endsWith('\n') && result.stderr.trim().split('\n')).toHaveLength(1);
    const body = JSON.parse(result.stderr);
    expect(Object.keys(body)).toEqual(['error']);
    expect(Object.keys(body.error).filter((name) => name !== 'field')).toEqual(['code', 'message']);
    expect(body.error.code).toBe(code);
    expect(typeof body.error.message).toBe('string');
    return body.error as { code: string; message: string; field?: string };
  }

  it('prints the result itself, an object or an array, as one line on stdout', async () => {
    const created = await runCli(['key', 'create', '--email', 'json@example.com', '--name', 'j', '--json'], t.env);
    const listed = await runCli(['key', 'list', '--json', '--email', 'json@example.com'], t.env);
    const migrated = await runCli(['--json', 'migrate'], t.env);
    for (const result of [created, listed, migrated]) {
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout.trim().split('\n')).toHaveLength(1);
    }
    expect(JSON.parse(created.stdout).key).toMatch(/^svc_live_/);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: JSON.parse(created.stdout).id })]);
    expect(JSON.parse(migrated.stdout)).toEqual({ applied: [] });
  });

  it('reports every kind of failure in the same shape on stderr', async () => {
    expectJsonError(await runCli(['key', 'fly', '--json'], t.env), 2, 'usage_error');
    expectJsonError(await runCli(['migrate', '--fast', '--json'], t.env), 2, 'usage_error');
    expectJsonError(await runCli(['key', 'create', '--email', 'json@example.com', '--json'], t.env), 2, 'usage_error');
    expectJsonError(await runCli(['user', 'create', '--email', 'x@example.com', '--plan', 'pro', '--json'], t.env), 2, 'usage_error');
    expectJsonError(await runCli(['key', 'delete', '--id', 'key_01m802kr9q7gd8svq5we5kytp3', '--json'], t.env), 1, 'not_found');
    const invalid = expectJsonError(
      await runCli(['org', 'create', '--name', 'A', '--owner', 'json@example.com', '--plan', 'free', '--json'], t.env),
      1,
      'validation_error',
    );
    expect(invalid.field).toBe('plan');
    const config = expectJsonError(await runCli(['migrate', '--json'], { ...t.env, PORT: 'eighty' }), 1, 'invalid_configuration');
    expect(config.field).toBe('PORT');
    const unreachable = { ...t.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    expectJsonError(await runCli(['key', 'list', '--email', 'json@example.com', '--json'], unreachable), 1, 'service_unavailable');
  });
});
