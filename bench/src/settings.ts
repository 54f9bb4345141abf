import type { ChatMessage } from '@switchboard/adapter';
/** The key every client sends and the emulators require (a loopback-only stand-in). */
export const BENCH_API_KEY = 'bench-key';

/** The model every client asks for. */
export const BENCH_MODEL = 'primary-flash';

/** Answer length of the large scenario: about 51 KB of content (the emulator's tokens are ~5 bytes). */
export const LARGE_ANSWER_TOKENS = 10_000;

/** The conversation every client sends. */
export const BENCH_MESSAGES = [
  { role: 'system', content: 'You review build logs and answer in one short paragraph.' },
  { role: 'user', content: 'Summarize the nightly build log: which step failed and why?' },
] satisfies ChatMessage[];

/** Answer length of the streaming benchmark: about 1,000 content events per stream (one token each). */
export const STREAM_ANSWER_TOKENS = 1_000;

/**
 * Sequential small calls a client makes before it is measured or profiled: on a 2-core machine every client,
 * the SDK too, gets faster call after call until about its 6,000th to 8,000th (V8 optimizes code run once per
 * call only after thousands of calls), then holds (bench/README.md, "Warmed up").
 */
export const STEADY_AFTER = 8_000;
