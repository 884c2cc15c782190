import { ConfigError } from './config.js';
import { resolveCommand, USAGE } from './cli/commands.js';
import { UsageError } from './cli/output.js';
import { ApiError } from './errors.js';

/** Command-line entry: `tagsvc <command>`. Exit 0 on success, 1 on a failed command, 2 on misuse. */
async function main(argv: string[]): Promise<void> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const { handler, args } = resolveCommand(argv);
  await handler(args);
}

function fail(error: unknown): void {
  const json = process.argv.includes('--json');
  if (error instanceof ConfigError) {
    const body = { error: { code: 'invalid_configuration', message: error.message, field: error.variable } };
    process.stderr.write(json ? `${JSON.stringify(body)}\n` : `tagsvc: ${error.message}\n`);
    process.exitCode = 1;
  } else if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`tagsvc: ${(error as Error).message}\n\n${USAGE}\n`);
    process.exitCode = 2;
  } else if (error instanceof ApiError) {
    const body = { error: { code: error.code, message: error.message, ...(error.details.field ? { field: error.details.field } : {}) } };
    process.stderr.write(json ? `${JSON.stringify(body)}\n` : `tagsvc: ${error.message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`tagsvc: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

main(process.argv.slice(2)).catch(fail);
