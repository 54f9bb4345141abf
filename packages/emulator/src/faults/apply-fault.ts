import type { Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { modelRejection } from '../chat/model-rejection.js';
import { type Delivery, PLAIN_DELIVERY, type Reply } from '../http/deliver-reply.js';
import { jsonReply, type RouteResult } from '../http/route-result.js';
import { deepErrorText, endlessStart, errorInBodyJson, WHITESPACE_BODY } from './fault-bodies.js';
import { faultError, retryHeaders } from './fault-error.js';
import type { FaultRule } from './fault-rule.js';
import { alterListing, isListing } from './listing-fault.js';
import { streamReply } from './stream-reply.js';

/** What a fault is told about the request it answers. */
export interface FaultFacts {
  /** The request's number. */
  readonly number: number;
  /** The body's `model` as sent, or null. */
  readonly model: string | null;
}

const JSON_TYPE = 'application/json';

/** What a fault rule makes of a request. */
export type FaultOutcome =
  /** Nothing more to write: the connection was reset, or went away during a delay. */
  | { readonly kind: 'done' }
  /** This reply instead of the emulator's answer. */
  | { readonly kind: 'reply'; readonly reply: Reply; readonly delivery: Delivery }
  /** The emulator's answer, changed by `alter`. */
  | { readonly kind: 'answer'; readonly alter: (result: RouteResult) => Reply; readonly delivery: Delivery };

/**
 * Applies `rule` (the one the fault plan picked, or null) to a request: waits
 * its `delayMs` (cut short when `signal` aborts), resets the connection, or
 * says what to answer and how to write it. Every fault branch lives here.
 */
export async function applyFault(
  rule: FaultRule | null,
  facts: FaultFacts,
  socket: Socket,
  signal: AbortSignal,
): Promise<FaultOutcome> {
  if (rule?.delayMs !== undefined) {
    try {
      await delay(rule.delayMs, undefined, { signal });
    } catch {
      return { kind: 'done' };
    }
    if (socket.destroyed) return { kind: 'done' };
  }
  const reply = faultReply(rule, facts);
  if (reply === 'reset') {
    socket.resetAndDestroy();
    return { kind: 'done' };
  }
  const delivery = deliveryOf(rule);
  if (reply !== null) return { kind: 'reply', reply, delivery };
  return { kind: 'answer', alter: (result) => alterAnswer(rule, result), delivery };
}

// The answer a rule gives in place of the emulator's; precedence as documented on FaultRule.
function faultReply(rule: FaultRule | null, facts: FaultFacts): Reply | 'reset' | null {
  if (rule === null) return null;
  if (rule.reset === true) return 'reset';
  const retry = retryHeaders(rule);
  const json = { 'content-type': JSON_TYPE, ...retry };
  const status = rule.status ?? 200;
  if (rule.redirect !== undefined) {
    const { location } = rule.redirect;
    const headers = { 'content-type': 'text/plain', location, ...retry };
    return { status: rule.redirect.status ?? 307, headers, body: `Redirecting to ${location}` };
  }
  if (rule.body !== undefined) {
    return {
      status,
      headers: { 'content-type': rule.contentType ?? 'text/html', ...retry },
      body: rule.body,
    };
  }
  if (rule.emptyBody === true) return { status: 200, headers: json, body: '' };
  if (rule.whitespaceBody === true) return { status, headers: json, body: WHITESPACE_BODY };
  if (rule.endlessBody === true) {
    return {
      status,
      headers: json,
      body: { endless: endlessStart(status, facts.model ?? '', facts.number) },
    };
  }
  if (rule.deepErrorBody !== undefined) {
    const deepStatus = rule.status ?? 400;
    return { status: deepStatus, headers: json, body: deepErrorText(rule.deepErrorBody, deepStatus) };
  }
  if (rule.errorInBody !== undefined) {
    return jsonReply({
      status: 200,
      headers: retry,
      body: errorInBodyJson(rule.errorInBody, facts.model ?? '', facts.number),
    });
  }
  if (rule.modelRejected !== undefined) {
    return jsonReply(modelRejection(facts.model ?? '', rule.modelRejected));
  }
  if (rule.status !== undefined) return jsonReply(faultError({ ...rule, status: rule.status }));
  return null;
}

// The emulator's own answer as the rule changes it: `noChoices`, `usage` and `truncate`, or streamed as `stream` says;
// a models listing as `listing` says.
function alterAnswer(rule: FaultRule | null, result: RouteResult): Reply {
  if (rule?.listing !== undefined && isListing(result)) return alterListing(result, rule.listing);
  const body = result.body as { choices?: unknown };
  const emptied =
    rule?.noChoices === true && result.status === 200 && Array.isArray(body.choices)
      ? { ...result, body: { ...body, choices: [] } }
      : result;
  if (emptied.stream !== undefined && emptied.status === 200) {
    return streamReply(emptied.body as Record<string, unknown>, emptied.stream, rule?.stream);
  }
  const usage = rule?.usage;
  const reported =
    usage !== undefined && emptied.generation !== undefined
      ? { ...emptied, body: { ...(emptied.body as object), usage } }
      : emptied;
  return jsonReply(reported, rule?.truncate === true);
}

// How the rule has the body written: trickled, after keep-alive newlines, or cut off.
function deliveryOf(rule: FaultRule | null): Delivery {
  if (
    rule === null ||
    (rule.trickleMs === undefined &&
      rule.keepAliveNewlines === undefined &&
      rule.cutOff !== true &&
      rule.cutOffAfterBytes === undefined)
  ) {
    return PLAIN_DELIVERY;
  }
  return {
    trickleMs: rule.trickleMs ?? null,
    trickleBytes: rule.trickleBytes ?? PLAIN_DELIVERY.trickleBytes,
    keepAliveNewlines: rule.keepAliveNewlines ?? 0,
    keepAliveMs: rule.keepAliveMs ?? PLAIN_DELIVERY.keepAliveMs,
    cutOffBytes: rule.cutOffAfterBytes ?? (rule.cutOff === true ? 'half' : null),
  };
}
