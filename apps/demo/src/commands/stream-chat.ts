import type { ChatClient, ChatResponse, CompleteRequest } from '@switchboard/adapter';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import { colors } from '../format.js';
import type { Io } from '../io.js';
import type { Spinner } from '../spinner.js';
import { safeJsonLine, safeText } from '../terminal-text.js';

/** How `chat --stream` shows the deltas as they arrive. */
export interface StreamChatOptions {
  /** One JSON object per delta (NDJSON) instead of text. */
  readonly json: boolean;
  /** Show reasoning also when stdout is not a terminal (it always shows, dimmed, on one). */
  readonly showReasoning: boolean;
}

/**
 * Makes the call as a stream and prints each delta as it arrives: content as
 * text; reasoning dimmed on a terminal (plain, with `--show-reasoning`, when
 * not one), a line break between reasoning and content; with `json` one JSON
 * object per delta. Tool calls are printed from the response afterwards.
 * Returns the response and whether the content and reasoning were printed.
 */
export async function streamChat(
  io: Io,
  client: ChatClient,
  request: CompleteRequest,
  spinner: Spinner,
  options: StreamChatOptions,
): Promise<{ response: ChatResponse; shownReasoning: boolean }> {
  if (typeof client.stream !== 'function') {
    throw new CliError('--stream needs a client that can stream', BAD_INPUT_EXIT_CODE);
  }
  const paint = colors(io.color);
  const liveReasoning = io.color || options.showReasoning;
  const stream = client.stream(request);
  let last: 'none' | 'reasoning' | 'content' = 'none';
  let shownReasoning = false;
  let spinning = true;
  try {
    for await (const delta of stream) {
      if (spinning) {
        spinner.stop();
        spinning = false;
      }
      if (options.json) {
        io.stdout(safeJsonLine(delta));
      } else if (delta.type === 'content') {
        if (last === 'reasoning') io.stdout('\n');
        io.stdout(safeText(delta.text));
        last = 'content';
      } else if (delta.type === 'reasoning' && liveReasoning) {
        io.stdout(paint.dim(safeText(delta.text)));
        last = 'reasoning';
        shownReasoning = true;
      }
    }
    return { response: await stream.response, shownReasoning };
  } finally {
    if (!options.json && last !== 'none') io.stdout('\n');
  }
}
