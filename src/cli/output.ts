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

export class UsageError extends Error {}
