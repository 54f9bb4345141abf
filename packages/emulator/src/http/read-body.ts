import type { IncomingMessage } from 'node:http';

/** How deep a request body's JSON may nest; deeper bodies are malformed (the emulator recurses over them). */
export const MAX_JSON_DEPTH = 256;

/** A request body as read: its text, or how many bytes arrived before it passed the cap. */
export type BodyText = { readonly text: string } | { readonly tooLarge: number; readonly limit: number };

/**
 * Reads the whole request body as UTF-8 text, or stops reading once it is
 * longer than `maxBytes` (the rest is never read: answer and close).
 */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<BodyText> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        request.pause();
        resolve({ tooLarge: size, limit: maxBytes });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve({ text: Buffer.concat(chunks).toString('utf8') });
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', onError);
  });
}

/** The outcome of parsing a request body as JSON. */
export type ParsedBody =
  | { readonly kind: 'empty' }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'malformed'; readonly problem: string }
  | { readonly kind: 'too-large'; readonly limit: number };

/** Parses a body as JSON, telling an empty body, malformed or too deep JSON and a body past the cap apart. */
export function parseBody(body: BodyText): ParsedBody {
  if ('tooLarge' in body) return { kind: 'too-large', limit: body.limit };
  const text = body.text;
  if (text.trim() === '') return { kind: 'empty' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'malformed', problem: error instanceof Error ? error.message : String(error) };
  }
  if (text.length > MAX_JSON_DEPTH && nestingDepth(text) > MAX_JSON_DEPTH) {
    return { kind: 'malformed', problem: `it nests deeper than ${MAX_JSON_DEPTH} levels` };
  }
  return { kind: 'json', value };
}

/** The deepest nesting of arrays and objects in valid JSON text (brackets inside strings ignored). */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index += 1;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (code === 0x7d || code === 0x5d) depth -= 1;
  }
  return deepest;
}
