import type { Command } from 'commander';
import { loadConfig, type Config } from '../config.js';
import type { ServiceContext } from '../context.js';
import { invalidRequest } from '../errors.js';
import type { Manifest } from './backup-manifest.js';
import { printResult } from './output.js';

/** What backup and restore print: the manifest without its list of files. */
function summary(dir: string, { createdAt, database, files, secretKeyFile }: Manifest) {
  return {
    dir,
    createdAt,
    database: database.kind,
    rows: database.rows,
    files: files.count,
    bytes: files.bytes,
    store: files.store,
    secretKeyFile,
  };
}

/** The configured storage, from the services as every command has it; closed after `use`. */
async function withStorage<T>(config: Config, use: (blobs: ServiceContext['blobs']) => Promise<T>): Promise<T> {
  const [{ createServices }, { default: pino }] = await Promise.all([import('../services.js'), import('pino')]);
  const services = await createServices(config, { log: pino({ level: 'silent' }), command: true });
  try {
    return await use(services.blobs);
  } finally {
    await services.close();
  }
}

/** `tagsvc backup <dir>` and `tagsvc restore <dir>` (docs/operations.md). */
export function addBackupCommands(program: Command): void {
  program
    .command('backup')
    .argument('<dir>', 'a new or empty directory')
    .description('take a consistent backup of the SQLite database and the files while the server runs')
    .action(async (dir: string, _options: unknown, command: Command) => {
      const config = loadConfig();
      const { POSTGRES_BACKUPS, takeBackup } = await import('./backup.js');
      if (config.databaseUrl) throw invalidRequest(POSTGRES_BACKUPS);
      const manifest = await withStorage(config, (blobs) => takeBackup(config, blobs, dir));
      printResult(summary(dir, manifest), Boolean(command.optsWithGlobals<{ json?: boolean }>().json));
    });
  program
    .command('restore')
    .argument('<dir>', 'a directory written by tagsvc backup')
    .description('verify a backup and bring it back into DATA_DIR (stop the server first)')
    .option('--force', 'replace the database and files DATA_DIR already holds')
    .action(async (dir: string, options: { force?: boolean }, command: Command) => {
      const config = loadConfig();
      const [{ restoreBackup }, { missingFromStore }] = await Promise.all([import('./restore.js'), import('./backup-manifest.js')]);
      const manifest = await restoreBackup(config, dir, Boolean(options.force));
      if (manifest.files.store === 'object-store') {
        const missing = await withStorage(config, (blobs) => missingFromStore(blobs, manifest.files.blobs));
        if (missing.length > 0) {
          throw invalidRequest(
            `the database is restored, but ${missing.length} of its files are not in the object store (${missing[0]!.key} …): restore them from the bucket's versions`,
          );
        }
      }
      printResult(summary(dir, manifest), Boolean(command.optsWithGlobals<{ json?: boolean }>().json));
    });
}
