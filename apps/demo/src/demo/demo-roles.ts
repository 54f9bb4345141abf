import {
  type ChatAdapter,
  ChatError,
  type ChatMessage,
  ModelRejectedError,
  type ToolSchema,
  toAssistantMessage,
} from '@switchboard/adapter';
import { formatConfidence } from '../format.js';

/** What one role of the demo session did, and the usage entries its calls recorded. */
export interface RoleOutcome {
  readonly role: string;
  readonly summary: string;
  readonly usage: readonly unknown[];
  /** The role's call was rejected in a way the pipeline records as a degradation. */
  readonly degraded?: boolean;
  /** The role's budget: its limit and the calls it refused before they were sent. */
  readonly budget?: RoleBudget;
}

/** What a role's budget did in the demo. */
interface RoleBudget {
  readonly limitUsd: number;
  /** Calls refused before they were sent. */
  readonly refused: number;
  /** Requests the emulator received for the refused calls (0: nothing was sent). */
  readonly requestsForRefused: number;
  /** The refusal's message: the scope, its limit, what is spent and reserved, what the call needed. */
  readonly refusal: string | null;
}

/** The tools and instructions the roles share; a long shared prefix earns prompt-cache hits. */
export const SYSTEM_PROMPT =
  'You are one role of a security-analysis pipeline. Read the evidence, cite file and line, ' +
  'and never report a finding the evidence does not support. Answer briefly.';

const GREP_TOOL: ToolSchema = {
  type: 'function',
  function: {
    name: 'grep_repository',
    description: 'Search the repository for a regular expression and return matching lines.',
    parameters: {
      type: 'object',
      properties: { pattern: { type: 'string', description: 'The regular expression to search for.' } },
      required: ['pattern'],
    },
  },
};

/** The line of code every role looks at. */
export const TOOL_RESULT =
  'src/db.ts:42:  return db.query("SELECT * FROM users WHERE id = " + request.params.id);';

/** Runs `work` and returns the usage entries it added to the adapter's ledger. */
async function recording(adapter: ChatAdapter, work: () => Promise<string>): Promise<[string, unknown[]]> {
  const start = adapter.usage.length;
  const summary = await work();
  return [summary, adapter.usage.slice(start)];
}

/**
 * Detector: a tool loop (tool call -> tool result -> answer), replaying reasoning
 * across the tool turn; the answer is streamed, with the same record and cost as a plain call.
 */
export async function runDetector(adapter: ChatAdapter, model: string): Promise<RoleOutcome> {
  const [summary, usage] = await recording(adapter, async () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: SYSTEM_PROMPT },
      {
        role: 'user',
        content: 'Is user input concatenated into SQL in src/db.ts? Use grep_repository to find the query.',
      },
    ];
    const first = await adapter.complete({ model, messages, tools: [GREP_TOOL] });
    const call = first.toolCalls[0];
    if (call === undefined) return `no tool call; answered: ${first.content ?? ''}`;
    // The platform rejects a replayed tool turn without its reasoning while thinking is on.
    messages.push(toAssistantMessage(first), { role: 'tool', tool_call_id: call.id, content: TOOL_RESULT });
    const stream = adapter.stream({ model, messages, tools: [GREP_TOOL] });
    let deltas = 0;
    for await (const _delta of stream) deltas += 1;
    const final = await stream.response;
    const replayed = first.reasoning === null ? 'no reasoning to replay' : 'reasoning replayed';
    return `tool call ${call.name} -> tool result -> answer (${replayed}, ${(final.content ?? '').length} chars, streamed in ${deltas} deltas)`;
  });
  return { role: 'detector', summary, usage };
}

/** Classifier: one call with logprobs; the mean log-probability becomes a confidence. */
export async function runClassifier(adapter: ChatAdapter, model: string): Promise<RoleOutcome> {
  const [summary, usage] = await recording(adapter, async () => {
    const response = await adapter.complete({
      model,
      logprobs: true,
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: `Classify this finding as true or false positive: ${TOOL_RESULT}` },
      ],
    });
    if (response.meanLogprob === null) return 'no logprobs in the reply';
    return `mean logprob ${response.meanLogprob.toFixed(4)}, confidence ${formatConfidence(response.meanLogprob)}`;
  });
  return { role: 'classifier', summary, usage };
}

/** Judge: JSON mode meets one empty reply and recovers through the adapter's single retry. */
export async function runJudge(
  adapter: ChatAdapter,
  model: string,
  countRequests: () => number,
): Promise<RoleOutcome> {
  const [summary, usage] = await recording(adapter, async () => {
    const before = countRequests();
    const response = await adapter.complete({
      model,
      jsonObject: true,
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: `Judge the finding and answer in JSON with a verdict: ${TOOL_RESULT}` },
      ],
    });
    const requests = countRequests() - before;
    const verdict = JSON.parse(response.content ?? 'null') as unknown;
    const keys =
      verdict !== null && typeof verdict === 'object' ? Object.keys(verdict).join(', ') : typeof verdict;
    return `${requests} requests: an empty JSON reply, then one retry -> valid JSON (${keys})`;
  });
  return { role: 'judge', summary, usage };
}

/** Proposer: a bounded copy caps the answer, which comes back cut off (`finish_reason: length`). */
export async function runProposer(
  adapter: ChatAdapter,
  model: string,
  maxOutputTokens: number,
): Promise<RoleOutcome> {
  const bounded = adapter.bounded(maxOutputTokens);
  const response = await bounded.complete({
    model,
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: `Propose a patch that parameterises the query: ${TOOL_RESULT}` },
    ],
  });
  return {
    role: 'proposer',
    summary: `bounded(${maxOutputTokens}): finish_reason ${response.finishReason ?? 'n/a'}, single attempt, own ledger`,
    usage: bounded.usage,
  };
}

/** A call with a model id the platform rejects, reported as a degradation, not a crash. */
export async function runRejectedModel(adapter: ChatAdapter, model: string): Promise<RoleOutcome> {
  let degraded = false;
  const [summary, usage] = await recording(adapter, async () => {
    try {
      await adapter.complete({ model, messages: [{ role: 'user', content: 'Which model answers?' }] });
      return `model ${model} was accepted`;
    } catch (error) {
      if (!ChatError.isInstance(error)) throw error;
      degraded = error.degradation;
      if (ModelRejectedError.isInstance(error)) {
        return `model '${error.model}' rejected; supported: ${error.supportedModels.join(', ')}`;
      }
      return `failed (${error.kind}): ${error.message}`;
    }
  });
  return { role: 'rejected-model', summary, usage, degraded };
}
