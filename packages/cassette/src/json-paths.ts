/**
 * The strings of a JSON value by path, as a reader puts them together: every
 * string (object keys too), and the strings that belong to one text in order —
 * the same field of every element of an array (a stream's deltas of one choice
 * and field, logprobs tokens, a message list), an element with a numeric `index`
 * (a choice, a tool call) kept apart from the others. A `bytes` array of
 * numbers (logprobs) is read as the bytes it lists.
 */

/**
 * A path of a JSON value (array positions left out, an element with a numeric
 * `index` kept apart), made once per distinct path, with the strings found
 * there: each as the object or array holding it and its key (a `bytes` list
 * counts as the text of its bytes).
 */
export class PathNode {
  readonly path: string;
  readonly holders: Array<Record<string, unknown> | unknown[]> = [];
  readonly keys: Array<string | number> = [];
  /** Which pieces are `bytes` lists; null while none is. */
  bytes: boolean[] | null = null;
  /**
   * How many times each piece stands in a row (the same string of the same holder, as a
   * stream's matched chunks add their template's); null while each stands once.
   */
  #counts: number[] | null = null;
  #fields: Map<string, PathNode> | undefined;
  #elements: Map<number | null, PathNode> | undefined;

  constructor(path: string) {
    this.path = path;
  }

  field(name: string): PathNode {
    this.#fields ??= new Map();
    let node = this.#fields.get(name);
    if (node === undefined) {
      node = new PathNode(`${this.path}.${name}`);
      this.#fields.set(name, node);
    }
    return node;
  }

  /** The node of an array's elements: those with a numeric `index` by it, the others together. */
  element(index: number | null): PathNode {
    this.#elements ??= new Map();
    let node = this.#elements.get(index);
    if (node === undefined) {
      node = new PathNode(`${this.path}[${index === null ? '' : `#${index}`}]`);
      this.#elements.set(index, node);
    }
    return node;
  }

  add(holder: Record<string, unknown> | unknown[], key: string | number, bytes: boolean): void {
    const last = this.keys.length - 1;
    if (!bytes && last >= 0 && this.holders[last] === holder && this.keys[last] === key) {
      this.#counts ??= this.keys.map(() => 1);
      (this.#counts[last] as number) += 1;
      return;
    }
    this.#counts?.push(1);
    if (bytes) {
      this.bytes ??= this.keys.map(() => false);
      this.bytes.push(true);
    } else this.bytes?.push(false);
    this.holders.push(holder);
    this.keys.push(key);
  }

  /** Adds a string `times` times in a row (as `times` calls of `add` would). */
  addTimes(holder: Record<string, unknown> | unknown[], key: string | number, times: number): void {
    if (times < 1) return;
    this.add(holder, key, false);
    if (times === 1) return;
    this.#counts ??= this.keys.map(() => 1);
    (this.#counts[this.keys.length - 1] as number) += times - 1;
  }

  /** The text of each piece, in order (one standing in a row several times, as often). */
  texts(): string[] {
    const texts = this.keys.map((_, index) => this.#text(index));
    const counts = this.#counts;
    return counts === null ? texts : texts.flatMap((text, index) => Array(counts[index]).fill(text));
  }

  /** When every piece is the same text: that text and how many pieces there are; else null. */
  repeated(): { text: string; count: number } | null {
    const text = this.#text(0);
    let count = 0;
    for (let index = 0; index < this.keys.length; index += 1) {
      if (this.#text(index) !== text) return null;
      count += this.#counts?.[index] ?? 1;
    }
    return { text, count };
  }

  #text(index: number): string {
    const value = (this.holders[index] as Record<string | number, unknown>)[
      this.keys[index] as string | number
    ];
    return this.bytes?.[index] === true
      ? (value as number[]).map((byte) => String.fromCharCode(byte)).join('')
      : (value as string);
  }

  /**
   * Puts `text` in place of piece `index` (of a node whose pieces each stand once); defined, not
   * assigned: a `__proto__` key of parsed JSON is data.
   */
  replace(index: number, text: string): void {
    if (this.#counts !== null) throw new Error('a repeated piece cannot be replaced one at a time');
    const value = this.bytes?.[index] === true ? Array.from(text, (unit) => unit.charCodeAt(0) & 0xff) : text;
    Object.defineProperty(this.holders[index] as object, this.keys[index] as string | number, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }

  /** This node and every node under it that holds strings. */
  *groups(): Generator<PathNode> {
    if (this.keys.length > 0) yield this;
    for (const node of this.#fields?.values() ?? []) yield* node.groups();
    for (const node of this.#elements?.values() ?? []) yield* node.groups();
  }
}

/** The strings of a JSON value by path, and each distinct object key with the first path it was seen at. */
export interface Collected {
  readonly root: PathNode;
  readonly names: Map<string, string>;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isByteList(value: unknown): value is number[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((item) => Number.isInteger(item) && (item as number) >= 0 && (item as number) <= 255)
  );
}

function elementNode(node: PathNode, element: unknown): PathNode {
  const index = isRecord(element) ? element.index : undefined;
  return node.element(typeof index === 'number' ? index : null);
}

/** What collecting does with each string found: adds it to its node, or notes it (a plan for a repeated shape). */
export type AddPiece = (
  node: PathNode,
  holder: Record<string, unknown> | unknown[],
  key: string | number,
  bytes: boolean,
) => void;

const addPiece: AddPiece = (node, holder, key, bytes) => node.add(holder, key, bytes);

/** Collects every string (and `bytes` list) of `value` under `node`, each object key into `names`. */
export function collectInto(
  value: unknown,
  node: PathNode,
  names: Map<string, string>,
  add: AddPiece = addPiece,
): void {
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const element = value[index];
      if (typeof element === 'string') add(elementNode(node, element), value, index, false);
      else if (typeof element === 'object' && element !== null) {
        collectInto(element, elementNode(node, element), names, add);
      }
    }
    return;
  }
  if (!isRecord(value)) return;
  for (const name in value) {
    if (!Object.hasOwn(value, name)) continue;
    if (!names.has(name)) names.set(name, `${node.path}{}`);
    const field = value[name];
    if (typeof field === 'string') add(node.field(name), value, name, false);
    else if (typeof field !== 'object' || field === null) continue;
    else if (name === 'bytes' && isByteList(field)) add(node.field(name), value, name, true);
    else collectInto(field, node.field(name), names, add);
  }
}

/** The strings of `value` by path, and its object keys. */
export function collect(value: unknown): Collected {
  const root = new PathNode('$');
  const names = new Map<string, string>();
  collectInto(value, root, names);
  return { root, names };
}
