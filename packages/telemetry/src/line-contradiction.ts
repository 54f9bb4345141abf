import type { SettlementKind } from './settlement.js';

type Fields = Record<string, unknown>;

/**
 * What a journal line says that no call the adapter recorded can say, or null: the checks a
 * line's own facts allow without a signature. Any line: a reply settled `exact` with 0 prompt
 * tokens (every request sends a prompt: its usage was zeroed, and its cost with it). A
 * numbered line (`seq`, written with its own settlement): a reply without an error settled
 * `unsettled` or `none`; `exact` without a usage; `none` (never reached the provider) naming
 * a reply id.
 */
export function contradictionOf(line: Fields, settlement: SettlementKind): string | null {
  const usage = line.usage;
  const counts = typeof usage === 'object' && usage !== null ? (usage as Fields) : null;
  if (settlement === 'exact' && counts?.prompt_tokens === 0)
    return 'a reply settled exact with 0 prompt tokens: every request sends a prompt, so its usage was changed (and its cost with it)';
  if (typeof line.seq !== 'number') return null;
  const failed = typeof line.error === 'object' && line.error !== null;
  if (!failed && (settlement === 'unsettled' || settlement === 'none'))
    return `settled ${settlement} though no error ended it: a call that was answered settles exact or as an estimate`;
  if (settlement === 'exact' && counts === null)
    return 'settled exact without a usage: only a reply’s usage settles a call exactly';
  if (settlement === 'none' && typeof line.responseId === 'string')
    return `settled none (it never reached the provider) though it names the reply ${JSON.stringify(line.responseId)}`;
  return null;
}
