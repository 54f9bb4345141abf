/** Most call ids a {@link CallIdIndex} holds (its table then takes 48 MiB). */
const MAX_INDEXED_CALL_IDS = 2 ** 21;

const FIRST_SLOTS = 1024;

/**
 * The call ids seen so far and the line each was first seen on, in bounded memory: a 64-bit
 * fingerprint of each id (two 32-bit hashes) and its line in an open-addressed table, 12
 * bytes a slot, at most half full, of at most {@link MAX_INDEXED_CALL_IDS} ids. Two ids share
 * a fingerprint about once in 10^7 journals of 2 million calls; such a pair would be named as
 * a repeat, never let through.
 */
export class CallIdIndex {
  #hashes = new Uint32Array(2 * FIRST_SLOTS);
  #lines = new Uint32Array(FIRST_SLOTS);
  #size = 0;
  /** Ids not held because the index was full: their repeats are not found by id. */
  unheld = 0;

  /** Notes `callId`, seen on `line` (from 1): the line an earlier one was on, or null when it is new. */
  add(callId: string, line: number): number | null {
    const first = fnv(callId);
    const second = murmur(callId);
    const mask = this.#lines.length - 1;
    for (let slot = (first ^ second) & mask; ; slot = (slot + 1) & mask) {
      const seen = this.#lines[slot] as number;
      if (seen === 0) break;
      if (this.#hashes[2 * slot] === first && this.#hashes[2 * slot + 1] === second) return seen;
    }
    if (this.#size >= MAX_INDEXED_CALL_IDS) {
      this.unheld += 1;
      return null;
    }
    if (2 * (this.#size + 1) > this.#lines.length) this.#grow();
    this.#put(first, second, Math.min(Math.max(1, line), 0xffffffff));
    this.#size += 1;
    return null;
  }

  #put(first: number, second: number, line: number): void {
    const mask = this.#lines.length - 1;
    let slot = (first ^ second) & mask;
    while (this.#lines[slot] !== 0) slot = (slot + 1) & mask;
    this.#hashes[2 * slot] = first;
    this.#hashes[2 * slot + 1] = second;
    this.#lines[slot] = line;
  }

  #grow(): void {
    const hashes = this.#hashes;
    const lines = this.#lines;
    this.#hashes = new Uint32Array(hashes.length * 2);
    this.#lines = new Uint32Array(lines.length * 2);
    for (let slot = 0; slot < lines.length; slot += 1) {
      const line = lines[slot] as number;
      if (line !== 0) this.#put(hashes[2 * slot] as number, hashes[2 * slot + 1] as number, line);
    }
  }
}

/** FNV-1a over the UTF-16 code units, then murmur3's finaliser: a 32-bit hash of a text. */
export function fnv(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  }
  return finalise(hash);
}

/** murmur2's mixing step over the code units, seeded apart from {@link fnv}: a second 32-bit hash. */
export function murmur(text: string): number {
  let hash = 0x9747b28c ^ text.length;
  for (let index = 0; index < text.length; index += 1) {
    let unit = Math.imul(text.charCodeAt(index), 0x5bd1e995);
    unit ^= unit >>> 24;
    hash = Math.imul(hash, 0x5bd1e995) ^ Math.imul(unit, 0x5bd1e995);
  }
  return finalise(hash);
}

function finalise(value: number): number {
  let hash = value;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
