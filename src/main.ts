import { CommanderError } from 'commander';
import { buildProgram } from './cli/commands.js';
import { reportFailure } from './cli/output.js';

/**
 * Command-line entry: `tagsvc <command>`. Exit 0 on success, 1 on a failed command, 2 on misuse.
 * `tagsvc help <command…>` is `tagsvc <command…> --help`, at any depth.
 */
async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  if (argv.length === 0) {
    program.outputHelp();
    return;
  }
  const args = argv[0] === 'help' ? [...argv.slice(1), '--help'] : argv;
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError && error.exitCode === 0) return;
    throw error;
  }
}

main(process.argv.slice(2)).catch((error: unknown) => reportFailure(error, process.argv.includes('--json')));
