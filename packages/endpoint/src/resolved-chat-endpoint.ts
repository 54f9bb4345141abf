import type { ChatAdapter, ChatClient } from '@switchboard/adapter';
import type { ScriptedChatClient } from '@switchboard/scripted';
import type { ChatEndpoint } from './chat-endpoint.js';

/** Which resolution rule picked the endpoint: override (1), scripted flag (2), configured (4), primary (5), gateway (6). */
export type ResolutionRule = 'override' | 'scripted' | 'configured' | 'primary' | 'gateway';

/** The rules whose client is a `ChatAdapter` over a wire transport (4, 5, 6): `NodeTransport` in Node, else `FetchTransport`. */
export type AdapterRule = 'configured' | 'primary' | 'gateway';

/** Rules 4–6: a `ChatAdapter` (with `costUsd`, `bounded`, `listModels`) costed by the record. */
export interface AdapterResolvedChatEndpoint {
  /** The rule that resolved, for display and journals. */
  readonly rule: AdapterRule;
  /** A `ChatAdapter` over a `NodeTransport` (`FetchTransport` outside Node), with {@link AdapterResolvedChatEndpoint.endpoint} as its cost model. */
  readonly client: ChatAdapter;
  /** Where the calls go, with the pricing model's prices; never the key. */
  readonly endpoint: ChatEndpoint;
}

/** Rule 1: the caller's own client, unwrapped. */
export interface OverrideResolvedChatEndpoint {
  /** The rule that resolved. */
  readonly rule: 'override';
  /** The `override` option itself. */
  readonly client: ChatClient;
  /** The scripted record: `baseUrl ''`, thinking off, no prices. */
  readonly endpoint: ChatEndpoint;
}

/** Rule 2: a scripted client chosen by `SWITCHBOARD_CLIENT`. */
export interface ScriptedResolvedChatEndpoint {
  /** The rule that resolved. */
  readonly rule: 'scripted';
  /** `scriptedClient(flag)`. */
  readonly client: ScriptedChatClient;
  /** The scripted record: `baseUrl ''`, thinking off, no prices. */
  readonly endpoint: ChatEndpoint;
}

/** The chat client a pipeline talks to and the record of where its calls go; `rule` tells the client's type. */
export type ResolvedChatEndpoint =
  | AdapterResolvedChatEndpoint
  | OverrideResolvedChatEndpoint
  | ScriptedResolvedChatEndpoint;

/** Whether the resolution's client is a `ChatAdapter` (rules 4–6), without `instanceof`. */
export function isAdapterResolution(
  resolved: ResolvedChatEndpoint | null | undefined,
): resolved is AdapterResolvedChatEndpoint {
  return resolved?.rule === 'configured' || resolved?.rule === 'primary' || resolved?.rule === 'gateway';
}
