import { hashText } from '../chat/seeded-random.js';
import type { ReplayCheck } from '../chat/validate-messages.js';
import { invalidField } from '../http/api-error.js';

/** The `format` the emulated gateway stamps on its reasoning entries. */
const REASONING_FORMAT = 'gateway-v1';

/**
 * The `reasoning_details` of a gateway reply: the reasoning text, signed, and
 * an unsigned one-sentence summary of it.
 */
export function buildReasoningDetails(reasoning: string, seed: string): Record<string, unknown>[] {
  const summary = `${reasoning.split('.')[0] ?? reasoning}.`;
  return [
    {
      type: 'reasoning.text',
      text: reasoning,
      signature: `sig_${hashText(`signed ${reasoning}`)}${hashText(`${seed} signature`)}`,
      format: REASONING_FORMAT,
      index: 0,
    },
    { type: 'reasoning.summary', summary, format: REASONING_FORMAT, index: 1 },
  ];
}

/** JSON text with object keys sorted, so two values compare equal whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The `reasoning_details` the gateway sent with each tool call, by tool call
 * id, so a replayed turn can be checked; the oldest are forgotten past `limit`.
 */
export class ReasoningLedger {
  readonly #sent = new Map<string, string>();
  readonly #limit: number;

  constructor(limit = 10_000) {
    this.#limit = limit;
  }

  /** Remembers `details` as sent with the tool calls `callIds`. */
  remember(callIds: readonly string[], details: unknown): void {
    const text = canonicalJson(details);
    for (const id of callIds) {
      this.#sent.delete(id);
      this.#sent.set(id, text);
    }
    while (this.#sent.size > this.#limit) {
      const oldest = this.#sent.keys().next().value as string;
      this.#sent.delete(oldest);
    }
  }

  /** The details (as canonical JSON) sent with tool call `id`, or undefined for a call it did not make. */
  sentWith(id: string): string | undefined {
    return this.#sent.get(id);
  }

  /** Forgets everything. */
  clear(): void {
    this.#sent.clear();
  }
}

/**
 * The gateway's rule while reasoning: a replayed tool-call turn must carry the
 * `reasoning_details` sent with its calls, unchanged (same entries, same
 * signatures; key order aside). For calls the gateway did not make, any
 * non-empty array will do.
 */
export function requireReasoningDetails(ledger: ReasoningLedger): ReplayCheck {
  return (message, index) => {
    const details = message.reasoning_details;
    if (!Array.isArray(details) || details.length === 0) {
      return invalidField(
        'messages',
        `Missing \`reasoning_details\` field in the assistant message at message index ${index}. ` +
          'The reasoning_details of an assistant turn with tool calls must be passed back unchanged ' +
          'while reasoning.',
      );
    }
    const calls = message.tool_calls as readonly { id: string }[];
    const sent = calls.map((call) => ledger.sentWith(call.id)).find((text) => text !== undefined);
    if (sent !== undefined && sent !== canonicalJson(details)) {
      return invalidField(
        'messages',
        `The \`reasoning_details\` of the assistant message at message index ${index} were changed: ` +
          'they must be passed back exactly as received (same entries, same signatures).',
      );
    }
    return null;
  };
}
