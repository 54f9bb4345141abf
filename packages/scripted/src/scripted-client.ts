import type { ChatResponse } from '@switchboard/adapter';
import { ScriptedChatClient } from './scripted-chat-client.js';
import { SCRIPTED_FLAGS } from './scripted-flags.js';
import findingsOnly from './scripts/findings-only.json' with { type: 'json' };
import toolThenFindings from './scripts/tool-then-findings.json' with { type: 'json' };
import unsafeSnippet from './scripts/unsafe-snippet.json' with { type: 'json' };

/**
 * One turn of a script file: a partial chat response, where `findings`, when
 * present, becomes the turn's `content` as JSON text.
 */
interface ScriptTurn extends Partial<Omit<ChatResponse, 'toolCalls'>> {
  toolCalls?: ChatResponse['toolCalls'];
  findings?: unknown[];
}

/** A script file under `src/scripts/`. */
interface Script {
  description: string;
  turns: ScriptTurn[];
}

const SCRIPTS: Readonly<Record<string, Script>> = Object.freeze({
  scripted: toolThenFindings,
  script: toolThenFindings,
  dump: findingsOnly,
  'dump-only': findingsOnly,
  unsafe: unsafeSnippet,
  'unsafe-snippet': unsafeSnippet,
});

function toTurn({ findings, ...turn }: ScriptTurn): Partial<ChatResponse> {
  return findings === undefined ? turn : { ...turn, content: JSON.stringify(findings) };
}

/**
 * A fresh scripted client for a flag of {@link SCRIPTED_FLAGS} (lowercased and
 * trimmed first), replaying a script file of the package:
 *
 * - `scripted`, `script`: one tool call (`grep_repository` with a `pattern`), then a
 *   final turn whose content is a JSON array of findings;
 * - `dump`, `dump-only`: that final findings turn alone;
 * - `unsafe`, `unsafe-snippet`: the tool call, then findings whose item carries a
 *   `snippet` holding an unsafe line of code.
 *
 * Past the end of its script the client answers with content `''`.
 *
 * @throws {RangeError} for any other flag, listing the valid ones.
 */
export function scriptedClient(flag: string): ScriptedChatClient {
  const key = typeof flag === 'string' ? flag.trim().toLowerCase() : '';
  const script = SCRIPTED_FLAGS.has(key) ? SCRIPTS[key] : undefined;
  if (script === undefined) {
    const shown = typeof flag === 'string' ? JSON.stringify(flag) : String(flag);
    throw new RangeError(
      `unknown scripted client flag ${shown}: expected one of ${[...SCRIPTED_FLAGS].join(', ')}`,
    );
  }
  return new ScriptedChatClient(script.turns.map(toTurn));
}
