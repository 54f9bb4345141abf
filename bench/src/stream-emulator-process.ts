// An emulator answering every call with a stream of N content events (argv[2]), in a child process
// of its own so that the benchmark process's CPU is the client's only. Sends `{ url, bytes: 0 }`
// over IPC once listening; closes when the IPC channel closes.
import { startEmulator } from '@switchboard/emulator';
import { BENCH_API_KEY } from './settings.js';

const emulator = await startEmulator({
  key: BENCH_API_KEY,
  answerTokens: Number(process.argv[2] ?? '10000'),
});
process.send?.({ url: emulator.url, bytes: 0 });
process.on('disconnect', () => {
  void emulator.close();
});
