/**
 * Ends the process quietly when its reader closes stdout's pipe early
 * (`switchboard report run.jsonl | head`): the rest of the output has nowhere to go,
 * which is no failure of the command, so it exits with the code it has so far (0 unless
 * set), as a command killed by SIGPIPE stops, instead of Node's unhandled `EPIPE` error
 * and its stack trace. A closed stderr is ignored: stdout may still have a reader. Any
 * other error of the streams is thrown as before.
 */
export function exitQuietlyOnClosedPipe(
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  const closed = (error: NodeJS.ErrnoException) => error.code === 'EPIPE';
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (!closed(error)) throw error;
    exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
  stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (!closed(error)) throw error;
  });
}
