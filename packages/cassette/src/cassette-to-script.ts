import { type ChatResponse, chatResponseFromMessage } from '@switchboard/adapter';
import { messageOf } from './message-of.js';
import { readCassette } from './read-cassette.js';
import { isFailure, isStream } from './recorded-reply-kind.js';

/** One turn of a `ScriptedChatClient` script. */
export type ScriptTurn = Partial<Omit<ChatResponse, 'calls' | 'costUsd'>>;

/**
 * The replies of a cassette's plain calls that got one, in recorded order, as
 * turns for `new ScriptedChatClient(turns)`: each reply read as the adapter
 * reads it (content, tool calls, reasoning, logprobs, finish reason). Failed
 * calls and streams are left out.
 */
export function cassetteToScript(path: string): ScriptTurn[] {
  return readCassette(path).entries.flatMap((entry) => {
    const reply = entry.reply;
    if (isFailure(reply) || isStream(reply)) return [];
    const {
      calls: _calls,
      costUsd: _cost,
      ...turn
    } = chatResponseFromMessage(messageOf(reply.body)) as ChatResponse;
    return [turn];
  });
}
