// Streaming: the client's CPU per 1,000-event stream through ChatAdapter.stream
// over OpenAITransport, against the openai SDK's own `for await` over
// `create({ stream: true })`, in interleaved rounds, and the time from the first
// byte of a stream's body to its first delta. The emulator runs in a child
// process, so this process's CPU is the clients' only. Not part of the tests.
//
// Usage (from the root): pnpm --filter @switchboard/bench bench:streaming [--quick]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { ChatAdapter, OpenAITransport } from '@switchboard/adapter';
import OpenAI from 'openai';
import { startEmulatorProcess } from './emulator-client.js';
import { machineInfo } from './machine.js';
import { median, roundOrder } from './measure.js';
import { BENCH_API_KEY, BENCH_MESSAGES, BENCH_MODEL, STREAM_ANSWER_TOKENS } from './settings.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: { quick: { type: 'boolean', default: false } },
});
const quick = values.quick === true;
const ROUNDS = quick ? 2 : 7;
const STREAMS = quick ? 10 : 40;
const collectGarbage = (globalThis as { gc?: () => void }).gc;

/** One streamed call; resolves with the characters of content received. */
type StreamOnce = (fetcher?: typeof fetch) => Promise<number>;

/** A `fetch` that notes when each reply's body yields its first bytes. */
function firstByteFetch(marks: number[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.body === null) return response;
    let first = true;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (first) {
            first = false;
            marks.push(performance.now());
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

const emulator = await startEmulatorProcess();
const baseURL = emulator.streamUrl;

function sdkClient(fetcher?: typeof fetch): OpenAI {
  return new OpenAI({
    apiKey: BENCH_API_KEY,
    baseURL,
    maxRetries: 0,
    ...(fetcher ? { fetch: fetcher } : {}),
  });
}
function adapterClient(fetcher?: typeof fetch): ChatAdapter {
  return new ChatAdapter(
    new OpenAITransport({ apiKey: BENCH_API_KEY, baseUrl: baseURL, ...(fetcher ? { fetch: fetcher } : {}) }),
  );
}

/** The openai SDK's own streaming: `for await` over `create({ stream: true })`. */
function sdkStream(client: OpenAI, onDelta: () => void = () => {}): () => Promise<number> {
  return async () => {
    const stream = await client.chat.completions.create({
      model: BENCH_MODEL,
      messages: BENCH_MESSAGES,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
      // The primary platform's own field, passed through as the other clients send it.
      ...({ thinking: { type: 'disabled' } } as object),
    });
    let chars = 0;
    for await (const chunk of stream) {
      const text = chunk.choices[0]?.delta?.content;
      if (text) {
        onDelta();
        chars += text.length;
      }
    }
    return chars;
  };
}

/** Switchboard's: `for await` over `adapter.stream(...)`, then its response (record and cost). */
function adapterStream(adapter: ChatAdapter, onDelta: () => void = () => {}): () => Promise<number> {
  return async () => {
    const stream = adapter.stream({ model: BENCH_MODEL, messages: BENCH_MESSAGES });
    let chars = 0;
    for await (const delta of stream) {
      if (delta.type === 'content') {
        onDelta();
        chars += delta.text.length;
      }
    }
    await stream.response;
    return chars;
  };
}

/** CPU µs of this process per stream over `count` sequential streams. */
async function cpuPerStream(run: () => Promise<number>, count: number): Promise<number> {
  collectGarbage?.();
  const before = process.cpuUsage();
  let chars = 0;
  for (let index = 0; index < count; index += 1) chars += await run();
  const spent = process.cpuUsage(before);
  if (chars === 0) throw new Error('no content arrived');
  return (spent.user + spent.system) / count;
}

/** Microseconds from the first byte of each body to the first content delta, median over `count` streams. */
async function firstDeltaMicros(
  make: (fetcher: typeof fetch, onDelta: () => void) => StreamOnce | (() => Promise<number>),
  count: number,
): Promise<number> {
  const marks: number[] = [];
  const gaps: number[] = [];
  let seen = false;
  const run = make(firstByteFetch(marks), () => {
    if (seen) return;
    seen = true;
    gaps.push((performance.now() - (marks.at(-1) ?? Number.NaN)) * 1000);
  });
  for (let index = 0; index < count; index += 1) {
    seen = false;
    await run();
  }
  return median(gaps);
}

const machine = machineInfo();
console.log(
  `machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; load average ${(loadavg()[0] ?? 0).toFixed(1)}`,
);
try {
  const runs = { sdk: sdkStream(sdkClient()), adapter: adapterStream(adapterClient()) };
  const events = await (async () => {
    const client = adapterClient();
    const stream = client.stream({ model: BENCH_MODEL, messages: BENCH_MESSAGES });
    let count = 0;
    for await (const _delta of stream) count += 1;
    await stream.response;
    return count;
  })();
  const kinds = ['sdk', 'adapter'] as const;
  for (const kind of kinds) await cpuPerStream(runs[kind], Math.ceil(STREAMS / 4));
  const cpu = { sdk: [] as number[], adapter: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of roundOrder(kinds, round)) cpu[kind].push(await cpuPerStream(runs[kind], STREAMS));
  }
  const ratio = median(cpu.adapter.map((micros, round) => micros / (cpu.sdk[round] ?? Number.NaN)));
  const firstSdk = await firstDeltaMicros(
    (fetcher, onDelta) => sdkStream(sdkClient(fetcher), onDelta),
    STREAMS,
  );
  const firstAdapter = await firstDeltaMicros(
    (fetcher, onDelta) => adapterStream(adapterClient(fetcher), onDelta),
    STREAMS,
  );
  const fixed = (value: number, digits = 0) => value.toFixed(digits);
  console.log(
    [
      '',
      `streams of ${events} content deltas (${STREAM_ANSWER_TOKENS} tokens), ${STREAMS} streams x ${ROUNDS} rounds, sequential`,
      '',
      '| client | CPU µs/stream | CPU µs/event | first byte -> first delta, µs (median) | vs openai SDK (median of rounds) | target | met |',
      '|---|---:|---:|---:|---:|---|---|',
      `| openai SDK, for await over create({ stream: true }) | ${fixed(median(cpu.sdk))} | ${fixed(median(cpu.sdk) / events, 2)} | ${fixed(firstSdk)} | 1.000x | | |`,
      `| ChatAdapter.stream over OpenAITransport | ${fixed(median(cpu.adapter))} | ${fixed(median(cpu.adapter) / events, 2)} | ${fixed(firstAdapter)} | ${ratio.toFixed(3)}x | <= 1.10x | ${ratio <= 1.1 ? 'yes' : 'no'} |`,
    ].join('\n'),
  );
} finally {
  await emulator.close();
}
