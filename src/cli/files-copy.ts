import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { printResult, UsageError } from './output.js';

const STORES = ['disk', 's3'] as const;

/**
 * `tagsvc files copy --to s3|disk`: every stored file from the configured storage (BLOB_STORE)
 * to the other one, verified; rerun to finish an interrupted copy (docs/files.md). One line per
 * file goes to stderr, the summary to stdout. It switches nothing: BLOB_STORE does.
 */
export function addFilesCommands(program: Command): void {
  program
    .command('files')
    .description('move stored files between the local disk and an object store')
    .command('copy')
    .description('copy every stored file to the other store (settings from the same variables), verified by size and SHA-256')
    .requiredOption('--to <store>', 'disk or s3')
    .action(async (options: { to: string }, command: Command) => {
      const to = STORES.find((store) => store === options.to);
      if (!to) throw new UsageError(`--to must be disk or s3, not "${options.to}"`, 'files copy');
      const config = loadConfig();
      if (to === config.blobStore) throw new UsageError(`files are kept on ${to} already (BLOB_STORE=${config.blobStore})`, 'files copy');
      const [{ createServices }, { createBlobStorage }, files, { default: pino }] = await Promise.all([
        import('../services.js'),
        import('../lib/blob-stores.js'),
        import('../features/files/index.js'),
        import('pino'),
      ]);
      const target = await createBlobStorage(config, to);
      try {
        await target.check(AbortSignal.timeout(config.dependencyTimeoutMs));
        const services = await createServices(config, { log: pino({ level: 'silent' }), command: true });
        try {
          const summary = await files.copyStoredFiles(services, target, ({ id, outcome, reason }) =>
            process.stderr.write(`${id}: ${outcome}${reason ? ` (${reason})` : ''}\n`),
          );
          printResult(
            {
              from: config.blobStore,
              to,
              ...summary,
              next:
                summary.failed.length > 0
                  ? 'Some files did not copy: fix the cause and run the command again (verified copies are kept).'
                  : `Nothing was switched. Run the command again just before switching to copy what was uploaded meanwhile, then set BLOB_STORE=${to} and restart every process.`,
            },
            Boolean(command.optsWithGlobals<{ json?: boolean }>().json),
          );
          if (summary.failed.length > 0) process.exitCode = 1;
        } finally {
          await services.close();
        }
      } finally {
        target.close();
      }
    });
}
