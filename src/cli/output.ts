import { CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { ApiError, isOutsideFault } from '../errors.js';

/** Prints a command's result: JSON with --json, else a readable key: value listing. */
export function printResult(result: unknown, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const rows = Array.isArray(result) ? result : [result];
  if (rows.length === 0) process.stdout.write('(none)\n');
  for (const row of rows) {
    for (const [name, value] of Object.entries(row as Record<string, unknown>)) {
      const text = value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value);
      process.stdout.write(`${name}: ${text}\n`);
    }
    if (rows.length > 1) process.stdout.write('\n');
  }
}

/** Misuse of the command line (exit code 2); `command` is the command's path, for the help hint. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command = '',
  ) {
    super(message);
  }
}

interface Failure {
  exitCode: number;
  code: string;
  message: string;
  field?: string;
  hint?: string;
}

/** Sorts any error into exit code, error code and message: one shape for every command. */
function describe(error: unknown): Failure {
  if (error instanceof UsageError) {
    const help = error.command ? `tagsvc ${error.command} --help` : 'tagsvc --help';
    return { exitCode: 2, code: 'usage_error', message: error.message, hint: `Run "${help}" for usage.` };
  }
  if (error instanceof ConfigError) return { exitCode: 1, code: 'invalid_configuration', message: error.message, field: error.variable };
  // The operator runs the command: a dependency's or the disk's own words say what to fix.
  if (isOutsideFault(error)) return { exitCode: 1, code: error.code, message: `${error.message} (${error.reason})` };
  if (error instanceof ApiError) return { exitCode: 1, code: error.code, message: error.message, field: error.details.field };
  return { exitCode: 1, code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
}

/**
 * Reports a failed command on stderr and sets the exit code: with --json one line
 * `{"error":{"code","message","field"?}}`, else `tagsvc: message` (and, for misuse, where to find help).
 */
export function reportFailure(error: unknown, json: boolean): void {
  const failure = describe(error);
  process.exitCode = failure.exitCode;
  if (json) {
    const { code, message, field } = failure;
    process.stderr.write(`${JSON.stringify({ error: { code, message, ...(field ? { field } : {}) } })}\n`);
  } else {
    process.stderr.write(`tagsvc: ${failure.message}\n${failure.hint ? `${failure.hint}\n` : ''}`);
  }
}

/** Commander's own misuse errors (unknown command or option, missing value) as UsageErrors. */
export function fromCommander(error: CommanderError, command: string): UsageError {
  return new UsageError(error.message.replace(/^error: /, ''), command);
}
