import type { Reply } from '../http/deliver-reply.js';
import { jsonReply, type RouteResult } from '../http/route-result.js';
import type { ListingFault } from './fault-rule.js';

type Entry = Record<string, unknown>;

/** Whether an answer is a models listing (`{object: 'list', data: [...]}`), the only body a listing fault changes. */
export function isListing(result: RouteResult): boolean {
  const body = result.body as { object?: unknown; data?: unknown } | null;
  return result.status === 200 && body?.object === 'list' && Array.isArray(body.data);
}

/** The listing `result` holds, changed as `fault` says (see {@link ListingFault}). */
export function alterListing(result: RouteResult, fault: ListingFault): Reply {
  const body = result.body as { data: Entry[] };
  let data: Entry[] = body.data.map((entry) => ({ ...entry }));
  for (const [id, fields] of Object.entries(fault.pricing ?? {})) {
    const index = data.findIndex((entry) => entry.id === id);
    const entry = data[index];
    if (entry === undefined) data.push({ id, object: 'model', pricing: { ...fields } });
    else data[index] = { ...entry, pricing: { ...(entry.pricing as Entry | undefined), ...fields } };
  }
  const first = data[0];
  if (fault.padding !== undefined && first !== undefined) {
    const filler = Array.from({ length: fault.padding }, (_, n) => ({
      ...first,
      id: `primary/filler-${n + 1}`,
    }));
    data = data.concat(filler);
  }
  const listing = { ...body, data: fault.data === undefined ? data : fault.data };
  if (fault.nesting === undefined) return jsonReply({ ...result, body: listing });
  // Too deep for JSON.stringify's recursion: the nested value is written as text.
  const marker = '"__nested__"';
  const withMarker = { ...listing, data: [{ ...first, pricing: { prompt: '__nested__' } }] };
  const nested = `${'['.repeat(fault.nesting)}"0"${']'.repeat(fault.nesting)}`;
  const reply = jsonReply({ ...result, body: withMarker });
  return { ...reply, body: (reply.body as string).replace(marker, nested) };
}
