/** How many pieces are held before they are joined into the text. */
const JOIN_EVERY = 256;

/**
 * A text made of many small pieces (a stream's deltas), joined a few hundred at a
 * time. Adding each piece with `+` would keep every piece alive, with a rope node
 * per piece, to the stream's end: 100,000 deltas make 200,000 small objects that
 * each young-generation collection copies until they are promoted. Joined in
 * batches, the pieces die young and the text is a few hundred strings.
 */
export class TextPieces {
  #joined = '';
  readonly #pending: string[] = [];
  #any = false;

  add(piece: string): void {
    this.#any = true;
    this.#pending.push(piece);
    if (this.#pending.length >= JOIN_EVERY) this.#join();
  }

  /** The text so far; null when nothing was added (an empty piece counts: the field arrived). */
  get text(): string | null {
    if (!this.#any) return null;
    if (this.#pending.length > 0) this.#join();
    return this.#joined;
  }

  #join(): void {
    this.#joined += this.#pending.join('');
    this.#pending.length = 0;
  }
}
