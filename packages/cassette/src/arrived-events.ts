import { usageOfEvents } from './call-pricing.js';
import type { RecordedStreamEvent } from './cassette-entry.js';
import { type ChunkTemplate, ChunkTemplates } from './chunk-template.js';
import type { LineEvents } from './compact-events.js';
import { type AddPiece, collectInto, isRecord, type PathNode } from './json-paths.js';
import { type ExpandedEvent, expandEvent, readsAsWritten } from './json-secrets.js';
import type { StreamEvent } from './transport-stream.js';

/** Where one string of a template's chunk goes: its node, and its holder and key in the template (or the content). */
interface PlanStep {
  readonly node: PathNode;
  readonly holder: Record<string, unknown> | unknown[];
  readonly key: string | number;
  readonly content: boolean;
}

/**
 * A recorded stream's events, each read as it arrives, so a provider's pace
 * hides the work and the stream's end is left with one scan and one write: a
 * JSON data parsed once (what the scan looks into), or, when it is the stream's
 * common chunk with another text (see `ChunkTemplate`), only that text taken;
 * and whether the data can be kept as it came (see `readsAsWritten`).
 */
export class ArrivedEvents {
  /**
   * Each event as recorded; null for a matched chunk kept as it came, whose data
   * is its template's bytes around its text (not held: a long stream's events
   * would otherwise keep every byte of the wire alive to its end).
   */
  readonly #events: Array<RecordedStreamEvent | null> = [];
  /** A null event's delay (0 for the others, which hold their own). */
  readonly #delays: number[] = [];
  /** Each event with its data parsed, or null for a chunk that matched a template. */
  readonly #expanded: Array<ExpandedEvent | null> = [];
  /** A matched chunk's template and text (the other events: null). */
  readonly #templates: Array<ChunkTemplate | null> = [];
  readonly #texts: Array<string | null> = [];
  readonly asIs: boolean[] = [];
  readonly #templateAsIs = new Map<ChunkTemplate, boolean>();
  readonly #learner = new ChunkTemplates();
  #recorded: RecordedStreamEvent[] | null = null;

  /** Every event as recorded (made whole when first asked for). */
  get recorded(): RecordedStreamEvent[] {
    this.#recorded ??= this.#events.map((event, index) => event ?? this.#whole(index));
    return this.#recorded;
  }

  #whole(index: number): RecordedStreamEvent {
    const [before, after] = (this.#templates[index] as ChunkTemplate).pieces as readonly [string, string];
    return { ms: this.#delays[index] as number, data: `${before}"${this.#texts[index] as string}"${after}` };
  }

  /** Records `event`, which came `ms` after the one before it (or after the stream opened). */
  take(ms: number, event: StreamEvent): void {
    if (!dataAlone(event)) {
      this.push({ ms, ...event });
      return;
    }
    // The common event (data alone) without a spread or, when matched, an object: a long stream has 100,000 of them.
    const match = this.#learner.match(event.data);
    if (match === null) this.#parsed({ ms, data: event.data }, true);
    else if (this.#templateAsIs.get(match.template) !== true || match.template.pieces === null) {
      this.#matched({ ms, data: event.data }, match);
    } else {
      this.#matched(null, match);
      this.#delays[this.#delays.length - 1] = ms;
    }
  }

  /** Records an event as it is recorded (its delay in it). */
  push(event: RecordedStreamEvent): void {
    const data = (event as { data?: unknown }).data;
    // Only an event of its delay and data alone (no event name) is matched: a matched one keeps nothing else.
    const plain = typeof data === 'string' && onlyDelayAndData(event);
    const match = plain ? this.#learner.match(data) : null;
    if (match !== null) this.#matched(event, match);
    else this.#parsed(event, plain);
  }

  #matched(event: RecordedStreamEvent | null, match: { template: ChunkTemplate; text: string }): void {
    this.#recorded = null;
    this.#events.push(event);
    this.#delays.push(0);
    this.#expanded.push(null);
    this.#templates.push(match.template);
    this.#texts.push(match.text);
    this.asIs.push(this.#templateAsIs.get(match.template) === true);
  }

  #parsed(event: RecordedStreamEvent, plain: boolean): void {
    this.#recorded = null;
    this.#events.push(event);
    this.#delays.push(0);
    const data = (event as { data?: unknown }).data;
    const expanded = expandEvent(event);
    this.#expanded.push(expanded);
    this.#templates.push(null);
    this.#texts.push(null);
    const asIs = 'json' in expanded && readsAsWritten(data as string, expanded.json);
    this.asIs.push(asIs);
    if ('json' in expanded && plain) {
      this.#learner.learn(data as string, expanded.json);
      const learned = this.#learner.match(data as string);
      if (learned !== null && !this.#templateAsIs.has(learned.template)) {
        this.#templateAsIs.set(learned.template, asIs);
      }
    }
  }

  /** The `usage` of the last event that carried one (see `usageOfEvents`), a matched chunk's being its template's. */
  usage(): unknown {
    for (let index = this.#events.length - 1; index >= 0; index -= 1) {
      const event = this.#events[index];
      const usage =
        event === null || event === undefined
          ? (this.#templates[index] as ChunkTemplate).chunk.usage
          : usageOfEvents([event]);
      if (isRecord(usage)) return usage;
    }
    return null;
  }

  /**
   * Adds the strings of every event, in order, under `node` (the path of the
   * recorded events), as collecting the parsed events would: a matched chunk
   * adds its template's strings and its own text where the template's text was.
   */
  collectInto(node: PathNode, names: Map<string, string>): void {
    const element = node.element(null);
    const plans = new Map<ChunkTemplate, PlanStep[]>();
    for (let index = 0; index < this.#events.length; index += 1) {
      const template = this.#templates[index];
      if (template === null || template === undefined) {
        collectInto(this.#expanded[index], element, names);
        continue;
      }
      let plan = plans.get(template);
      if (plan === undefined) {
        plan = planOf(template, element, names);
        plans.set(template, plan);
      }
      for (const step of plan) {
        if (step.content) step.node.add(this.#texts, index, false);
        else step.node.add(step.holder, step.key, false);
      }
    }
  }

  /** Every event with its data parsed (a matched chunk parsed now), for scrubbing in place. */
  expandAll(): ExpandedEvent[] {
    return this.#expanded.map((expanded, index) => expanded ?? expandEvent(this.recorded[index]));
  }

  /** The events (as `unchanged` gives them) as a line writes them compactly, or null (see `lineEventsOf`). */
  lineEvents(): LineEvents | null {
    return lineEventsOf(this.#events, this.#delays, this.#templates, this.#texts, this.asIs);
  }

  /** The events as the line keeps them when nothing was scrubbed: each as it came, or written back as standard JSON. */
  unchanged(): RecordedStreamEvent[] {
    return this.recorded.map((event, index) => {
      if (this.asIs[index] === true || !('data' in event)) return event;
      const expanded = this.#expanded[index] ?? expandEvent(event);
      if (!('json' in expanded)) return event;
      return { ...event, data: JSON.stringify(expanded.json) };
    });
  }
}

/**
 * The events as a line writes them compactly (see `LineEvents`): each run of
 * events in a row that matched one template with known pieces and are kept as
 * they came, as one `{t, ms, text}`; null when there is none. `events` are as
 * recorded, null for a matched chunk whose data is not held (its delay in `delays`).
 */
export function lineEventsOf(
  events: ReadonlyArray<RecordedStreamEvent | null>,
  delays: readonly number[],
  templates: ReadonlyArray<ChunkTemplate | null>,
  texts: ReadonlyArray<string | null>,
  asIs: readonly boolean[],
): LineEvents | null {
  const numbers = new Map<ChunkTemplate, number>();
  const pairs: Array<readonly [string, string]> = [];
  const written: unknown[] = [];
  let run: { t: number; ms: unknown[]; text: string[] } | null = null;
  for (let index = 0; index < events.length; index += 1) {
    const event = events[index] ?? null;
    const template = templates[index];
    const text = texts[index];
    const pieces = template?.pieces;
    // Kept as it came (not written back as standard JSON): exactly the template's bytes around the text.
    if (
      event !== null &&
      (template === null ||
        template === undefined ||
        asIs[index] !== true ||
        pieces === null ||
        pieces === undefined ||
        typeof text !== 'string' ||
        !('data' in event) ||
        event.data.length !== pieces[0].length + text.length + 2 + pieces[1].length)
    ) {
      written.push(event);
      run = null;
      continue;
    }
    // A null event matched a template with pieces (that is when its data is not held).
    const matched = template as ChunkTemplate;
    let number = numbers.get(matched);
    if (number === undefined) {
      number = pairs.length;
      numbers.set(matched, number);
      pairs.push(matched.pieces as readonly [string, string]);
    }
    if (run === null || run.t !== number) {
      run = { t: number, ms: [], text: [] };
      written.push(run);
    }
    run.ms.push(event === null ? delays[index] : event.ms);
    run.text.push(text as string);
  }
  return pairs.length === 0 ? null : { templates: pairs, events: written };
}

/** An event of data alone (no event name, nothing else). */
function dataAlone(event: StreamEvent): event is { readonly data: string } {
  for (const name in event) if (name !== 'data') return false;
  return 'data' in event;
}

function onlyDelayAndData(event: RecordedStreamEvent): boolean {
  let count = 0;
  for (const name in event) {
    if (name !== 'ms' && name !== 'data') return false;
    count += 1;
  }
  return count === 2;
}

/** The strings a template's chunk adds, as a parsed event `{ ms, json }` of it would, its content marked. */
function planOf(template: ChunkTemplate, element: PathNode, names: Map<string, string>): PlanStep[] {
  const chunk = template.chunk;
  const choice = (chunk.choices as unknown[])[0];
  const delta = isRecord(choice) ? choice.delta : undefined;
  const steps: PlanStep[] = [];
  const add: AddPiece = (node, holder, key) => {
    steps.push({ node, holder, key, content: holder === delta && key === 'content' });
  };
  collectInto({ ms: 0, json: chunk }, element, names, add);
  return steps;
}
