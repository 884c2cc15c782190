import { UsageError } from './output.js';

/**
 * Where a command's password comes from. Never from the arguments: argv is kept in shell
 * history and shown to every user of the machine by `ps`. So either standard input (piped, or
 * forced with --password-stdin), or, when standard input is a terminal, a prompt that does not
 * echo what is typed.
 */
export async function readPassword(options: { stdin: boolean; command: string }): Promise<string> {
  if (options.stdin || !process.stdin.isTTY) return passwordFromStdin(options.command);
  const [first, second] = await promptHidden(['Password: ', 'Repeat the password: '], options.command);
  if (first !== second) throw new UsageError('the two passwords differ', options.command);
  return first!;
}

/** All of standard input, less one trailing newline (`echo` and here-documents add one). */
async function passwordFromStdin(command: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (password === '')
    throw new UsageError('no password on standard input: pipe it in, or run the command in a terminal to be asked', command);
  return password;
}

const ENTER = new Set(['\r', '\n']);
const ERASE = new Set(['\u007f', '\b']);
const CTRL_C = '\u0003';
const CTRL_D = '\u0004';

/**
 * Asks each question on stderr (stdout stays clean for --json) and reads one line per question
 * from the terminal in raw mode, so nothing typed is echoed. Keys arriving before the next
 * question (a paste of both lines) are kept for it. Ctrl-C or Ctrl-D cancels.
 */
function promptHidden(questions: string[], command: string): Promise<string[]> {
  const input = process.stdin;
  const answers: string[] = [];
  let line: string[] = [];
  // Echo goes off before the question shows, so nothing typed after seeing it is echoed.
  input.setRawMode(true);
  input.setEncoding('utf8');
  process.stderr.write(questions[0]!);
  return new Promise((resolve, reject) => {
    const finish = (error?: Error) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      if (error) reject(error);
      else resolve(answers);
    };
    const onData = (chunk: string) => {
      for (const key of chunk) {
        if (key === CTRL_C || key === CTRL_D) {
          process.stderr.write('\n');
          return finish(new UsageError('cancelled', command));
        }
        if (ENTER.has(key)) {
          process.stderr.write('\n');
          answers.push(line.join(''));
          line = [];
          if (answers.length === questions.length) return finish();
          process.stderr.write(questions[answers.length]!);
        } else if (ERASE.has(key)) line.pop();
        else if (key >= ' ') line.push(key);
      }
    };
    input.on('data', onData);
    input.resume();
  });
}
