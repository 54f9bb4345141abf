import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ChatAdapter, type ChatClient, FetchTransport, NodeTransport } from '@switchboard/adapter';
import { createBudget } from '@switchboard/budget';
import { resolveChatEndpoint } from '@switchboard/endpoint';
import { CallJournal, CallMeter, otelObserver } from '@switchboard/telemetry';
import { generateText } from 'ai';
import OpenAI from 'openai';
import { BENCH_API_KEY, BENCH_MESSAGES, BENCH_MODEL } from './settings.js';

/** One way of making the same chat call; `call` resolves with the answer's length in characters. */
export interface BenchClient {
  readonly id: ClientId;
  readonly label: string;
  call(): Promise<number>;
  /** Releases what the client holds (a journal's file, a budget), if anything. */
  close?(): Promise<void>;
}

/** The clients compared, in table order. */
export const CLIENT_IDS = [
  'fetch',
  'openai',
  'openai-aa',
  'ai-sdk',
  'adapter-fetch',
  'adapter',
  'resolved',
  'full',
  'layer-budget',
  'layer-journal',
  'layer-meter',
  'layer-otel',
] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

/** The clients of the main bench: every one but the single-layer rows (bench:speed --layers). */
export const DEFAULT_CLIENT_IDS: readonly ClientId[] = CLIENT_IDS.filter((id) => !id.startsWith('layer-'));

/** The reference every ratio is taken against. */
export const BASELINE: ClientId = 'openai';

// Every client sends the same body: model, messages, temperature 0 and thinking
// disabled (the adapter's defaults), to the same emulator, with the same key.
const THINKING_DISABLED = { type: 'disabled' } as const;

function rawFetch(baseUrl: string): BenchClient {
  const url = `${baseUrl}/chat/completions`;
  const headers = { authorization: `Bearer ${BENCH_API_KEY}`, 'content-type': 'application/json' };
  return {
    id: 'fetch',
    label: 'raw fetch (floor)',
    async call() {
      const body = JSON.stringify({
        model: BENCH_MODEL,
        messages: BENCH_MESSAGES,
        temperature: 0,
        thinking: THINKING_DISABLED,
      });
      const response = await fetch(url, { method: 'POST', headers, body });
      if (!response.ok) throw new Error(`fetch: HTTP ${response.status}`);
      const reply = (await response.json()) as { choices: { message: { content: string } }[] };
      return reply.choices[0]?.message.content.length ?? 0;
    },
  };
}

function openaiSdk(baseUrl: string, id: 'openai' | 'openai-aa' = 'openai'): BenchClient {
  const client = new OpenAI({ apiKey: BENCH_API_KEY, baseURL: baseUrl, maxRetries: 2 });
  return {
    id,
    label: id === 'openai' ? '`openai` SDK' : '`openai` SDK, a second client (A/A control)',
    async call() {
      const reply = await client.chat.completions.create({
        model: BENCH_MODEL,
        messages: BENCH_MESSAGES as OpenAI.ChatCompletionMessageParam[],
        temperature: 0,
        // Not in the SDK's types: the provider's own field, passed through as is.
        ...({ thinking: THINKING_DISABLED } as object),
      });
      return reply.choices[0]?.message.content?.length ?? 0;
    },
  };
}

function aiSdk(baseUrl: string): BenchClient {
  const provider = createOpenAICompatible({ name: 'primary', baseURL: baseUrl, apiKey: BENCH_API_KEY });
  const model = provider.chatModel(BENCH_MODEL);
  // The AI SDK's own way to send a system message (in `messages` it warns on every call);
  // the request body comes out the same as the other clients'.
  const [system, ...messages] = BENCH_MESSAGES;
  return {
    id: 'ai-sdk',
    label: 'AI SDK (`ai` + openai-compatible)',
    async call() {
      const result = await generateText({
        model,
        system: system?.content,
        messages: messages as Parameters<typeof generateText>[0]['messages'] & object,
        temperature: 0,
        maxRetries: 2,
        providerOptions: { primary: { thinking: THINKING_DISABLED } },
      });
      return result.text.length;
    },
  };
}

/** A bench client over one of our `ChatClient`s. */
function chatClient(id: BenchClient['id'], label: string, client: ChatClient): BenchClient {
  return {
    id,
    label,
    async call() {
      const response = await client.complete({ model: BENCH_MODEL, messages: BENCH_MESSAGES });
      return response.content?.length ?? 0;
    },
  };
}

/** `ChatAdapter` over `NodeTransport` (node:http, what `resolveChatEndpoint` uses in Node). */
function adapter(baseUrl: string): BenchClient {
  const chat = new ChatAdapter(new NodeTransport({ apiKey: BENCH_API_KEY, baseUrl, env: {} }));
  return chatClient('adapter', '`ChatAdapter` over `NodeTransport`', chat);
}

/** `ChatAdapter` over `FetchTransport` (requests built with the global `fetch`). */
function adapterOverFetch(baseUrl: string): BenchClient {
  const chat = new ChatAdapter(new FetchTransport({ apiKey: BENCH_API_KEY, baseUrl }));
  return chatClient('adapter-fetch', '`ChatAdapter` over `FetchTransport`', chat);
}

function resolved(baseUrl: string): BenchClient {
  const endpoint = resolveChatEndpoint(undefined, {
    env: { PRIMARY_API_KEY: BENCH_API_KEY, PRIMARY_BASE_URL: baseUrl },
  });
  if (endpoint === null) throw new Error('resolveChatEndpoint returned null with PRIMARY_API_KEY set');
  return chatClient('resolved', '`resolveChatEndpoint` client', endpoint.client);
}

/** The observers of the full stack, each of which a `layer-*` client adds alone to the resolved client. */
const LAYERS = ['budget', 'journal', 'meter', 'otel'] as const;
type Layer = (typeof LAYERS)[number];

/**
 * The resolved client with the observers `layers`: an in-memory budget, a journal written to a temporary
 * file, a meter and the OpenTelemetry observer (no SDK registered, so its instruments are the API's no-op ones).
 */
async function observed(
  baseUrl: string,
  id: ClientId,
  label: string,
  layers: readonly Layer[],
): Promise<BenchClient> {
  const folder = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  // The ~55 KB answers are about 10,000 tokens: a cap above that, so no call costs more than its reservation.
  const budget = layers.includes('budget')
    ? createBudget({ scope: { name: 'bench-full', limitUsd: 1_000_000 }, maxOutputTokens: 16_384 })
    : null;
  const journal = layers.includes('journal') ? new CallJournal(join(folder, 'calls.jsonl')) : null;
  const observers = [
    ...(budget === null ? [] : [budget]),
    ...(journal === null ? [] : [journal]),
    ...(layers.includes('meter') ? [new CallMeter()] : []),
    ...(layers.includes('otel') ? [await otelObserver()] : []),
  ];
  const endpoint = resolveChatEndpoint(undefined, {
    env: { PRIMARY_API_KEY: BENCH_API_KEY, PRIMARY_BASE_URL: baseUrl },
    observers,
  });
  if (endpoint === null) throw new Error('resolveChatEndpoint returned null with PRIMARY_API_KEY set');
  return {
    ...chatClient(id, label, endpoint.client),
    async close() {
      await journal?.close();
      budget?.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

const fullStack = (baseUrl: string) =>
  observed(
    baseUrl,
    'full',
    'full stack: resolved client + memory budget + journal + meter + OTel observer (no SDK)',
    LAYERS,
  );
const layer = (name: Layer, label: string) => (baseUrl: string) =>
  observed(baseUrl, `layer-${name}`, `resolved client + ${label} only`, [name]);

const FACTORIES: Record<ClientId, (baseUrl: string) => BenchClient | Promise<BenchClient>> = {
  fetch: rawFetch,
  openai: (baseUrl) => openaiSdk(baseUrl),
  'openai-aa': (baseUrl) => openaiSdk(baseUrl, 'openai-aa'),
  'ai-sdk': aiSdk,
  'adapter-fetch': adapterOverFetch,
  adapter,
  resolved,
  full: fullStack,
  'layer-budget': layer('budget', 'memory budget'),
  'layer-journal': layer('journal', 'journal'),
  'layer-meter': layer('meter', 'meter'),
  'layer-otel': layer('otel', 'OTel observer'),
};

/** The clients `ids` (every client by default), pointed at one emulator, in table order. */
export async function createClients(
  baseUrl: string,
  ids: readonly ClientId[] = DEFAULT_CLIENT_IDS,
): Promise<BenchClient[]> {
  return Promise.all(CLIENT_IDS.filter((id) => ids.includes(id)).map((id) => FACTORIES[id](baseUrl)));
}
