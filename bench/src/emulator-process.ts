// The emulator side of the benchmark, in a child process of its own so that
// process.cpuUsage() in the parent counts the clients' work only. Two
// emulators: default (short) answers and ~50 KB answers, plus one answering
// 1,000-token answers for the streaming benchmark. Talks to the parent
// over the IPC channel: it sends `{ type: 'ready', ... }`, then answers
// `reset` and `requests` messages, and exits on `close`.
import { startEmulator } from '@switchboard/emulator';
import { BENCH_API_KEY, LARGE_ANSWER_TOKENS, STREAM_ANSWER_TOKENS } from './settings.js';

/** A message from the benchmark to the emulator process. */
export type EmulatorCommand = { type: 'reset' } | { type: 'requests' } | { type: 'close' };

/** A message from the emulator process to the benchmark. */
export type EmulatorReport =
  | { type: 'ready'; smallUrl: string; largeUrl: string; streamUrl: string }
  | { type: 'reset' }
  | { type: 'requests'; small: unknown[]; large: unknown[] };

const small = await startEmulator({ key: BENCH_API_KEY });
const large = await startEmulator({ key: BENCH_API_KEY, answerTokens: LARGE_ANSWER_TOKENS });
const streaming = await startEmulator({ key: BENCH_API_KEY, answerTokens: STREAM_ANSWER_TOKENS });

function report(message: EmulatorReport): void {
  process.send?.(message);
}

process.on('message', async (command: EmulatorCommand) => {
  if (command.type === 'reset') {
    small.reset();
    large.reset();
    report({ type: 'reset' });
  } else if (command.type === 'requests') {
    const bodies = (emulator: typeof small) => emulator.requests.map((request) => request.body);
    report({ type: 'requests', small: bodies(small), large: bodies(large) });
  } else if (command.type === 'close') {
    await Promise.all([small.close(), large.close(), streaming.close()]);
    process.disconnect();
  }
});

report({ type: 'ready', smallUrl: small.url, largeUrl: large.url, streamUrl: streaming.url });
