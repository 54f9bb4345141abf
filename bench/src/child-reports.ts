import type { ChildProcess } from 'node:child_process';

/**
 * The next message of `type` a child process sends over IPC; rejects when the child exits first
 * (`who` names it in the error), or with the message of a `failed` report.
 */
export function nextReport<R extends { type: string }, T extends R['type']>(
  child: ChildProcess,
  type: T,
  who: string,
): Promise<Extract<R, { type: T }>> {
  return new Promise((resolve, reject) => {
    const done = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (message: R | { type: 'failed'; message: string }) => {
      if (message.type === 'failed' && 'message' in message && type !== 'failed') {
        done();
        reject(new Error(`${who}: ${message.message}`));
        return;
      }
      if (message.type !== type) return;
      done();
      resolve(message as Extract<R, { type: T }>);
    };
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`${who} exited (code ${code}) before sending '${type}'`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
