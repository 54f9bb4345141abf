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

/** An event held whole: as recorded, parsed (or matched: its template and text), and whether kept as it came. */
interface Held {
  readonly event: RecordedStreamEvent;
  readonly expanded: ExpandedEvent | null;
  readonly template: ChunkTemplate | null;
  readonly text: string | null;
  readonly asIs: boolean;
}

/** Where the events of one template begin among the slots (its texts the string slots from there). */
interface Run {
  readonly start: number;
  readonly template: ChunkTemplate;
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
   * One slot an event: a matched chunk kept as it came is its text alone (its data is
   * its template's bytes around the text, see `#runs`; not held, or a long stream's
   * events would keep every byte of the wire alive to its end); any other, held.
   */
  readonly #slots: Array<string | Held> = [];
  /** Each text slot's delay (0 for the others, which hold their own). */
  readonly #delays: number[] = [];
  /** The template of each stretch of text slots, from its first slot on. */
  readonly #runs: Run[] = [];
  /** The template of the last run, whose chunks are kept as texts. */
  #textTemplate: ChunkTemplate | null = null;
  readonly #templateAsIs = new Map<ChunkTemplate, boolean>();
  readonly #learner = new ChunkTemplates();
  #recorded: RecordedStreamEvent[] | null = null;

  /** Records `event`, which came `ms` after the one before it (or after the stream opened). */
  take(ms: number, event: StreamEvent): void {
    if (!dataAlone(event)) {
      this.push({ ms, ...event });
      return;
    }
    // The common event (data alone) without a spread or, when matched, an object: a long stream has 100,000 of them.
    const template = this.#learner.current;
    const text = template === null ? null : template.match(event.data);
    if (template === null || text === null) this.#parsed({ ms, data: event.data }, true);
    else if (template !== this.#textTemplate) {
      if (this.#templateAsIs.get(template) !== true || template.pieces === null) {
        this.#matched({ ms, data: event.data }, { template, text });
        return;
      }
      this.#textTemplate = template;
      this.#runs.push({ start: this.#slots.length, template });
      this.#text(ms, text);
    } else this.#text(ms, text);
  }

  /** Records a matched chunk of the current text template (see `#slots`). */
  #text(ms: number, text: string): void {
    this.#recorded = null;
    this.#slots.push(text);
    this.#delays.push(ms);
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

  #matched(event: RecordedStreamEvent, match: { template: ChunkTemplate; text: string }): void {
    const asIs = this.#templateAsIs.get(match.template) === true;
    this.#hold({ event, expanded: null, template: match.template, text: match.text, asIs });
  }

  #parsed(event: RecordedStreamEvent, plain: boolean): void {
    const data = (event as { data?: unknown }).data;
    const expanded = expandEvent(event);
    const asIs = 'json' in expanded && readsAsWritten(data as string, expanded.json);
    this.#hold({ event, expanded, template: null, text: null, asIs });
    if ('json' in expanded && plain) {
      this.#learner.learn(data as string, expanded.json);
      const learned = this.#learner.match(data as string);
      if (learned !== null && !this.#templateAsIs.has(learned.template)) {
        this.#templateAsIs.set(learned.template, asIs);
      }
    }
  }

  #hold(held: Held): void {
    this.#recorded = null;
    this.#slots.push(held);
    this.#delays.push(0);
  }

  /**
   * Calls `held` with every held event and `texts` with every stretch of text slots in
   * a row (`start` to `end`, one template), in order.
   */
  #each(
    held: (slot: Held, index: number) => void,
    texts: (start: number, end: number, template: ChunkTemplate) => void,
  ): void {
    const slots = this.#slots;
    let run = -1;
    for (let index = 0; index < slots.length; ) {
      const slot = slots[index] as string | Held;
      if (typeof slot !== 'string') {
        held(slot, index);
        index += 1;
        continue;
      }
      while ((this.#runs[run + 1]?.start ?? Number.POSITIVE_INFINITY) <= index) run += 1;
      const limit = Math.min(this.#runs[run + 1]?.start ?? slots.length, slots.length);
      let end = index + 1;
      while (end < limit && typeof slots[end] === 'string') end += 1;
      texts(index, end, (this.#runs[run] as Run).template);
      index = end;
    }
  }

  /** A text slot's event, made whole. */
  #whole(index: number, text: string, template: ChunkTemplate): RecordedStreamEvent {
    const [before, after] = template.pieces as readonly [string, string];
    return { ms: this.#delays[index] as number, data: `${before}"${text}"${after}` };
  }

  /** Every event as recorded (made whole when first asked for). */
  get recorded(): RecordedStreamEvent[] {
    if (this.#recorded === null) {
      const recorded: RecordedStreamEvent[] = [];
      this.#each(
        (slot) => recorded.push(slot.event),
        (start, end, template) => {
          for (let index = start; index < end; index += 1) {
            recorded.push(this.#whole(index, this.#slots[index] as string, template));
          }
        },
      );
      this.#recorded = recorded;
    }
    return this.#recorded;
  }

  /** Whether each event is kept as it came (see `readsAsWritten`): a text slot always is. */
  get asIs(): boolean[] {
    return this.#slots.map((slot) => typeof slot === 'string' || slot.asIs);
  }

  /** The `usage` of the last event that carried one (see `usageOfEvents`), a matched chunk's being its template's. */
  usage(): unknown {
    for (let index = this.#slots.length - 1; index >= 0; index -= 1) {
      const slot = this.#slots[index] as string | Held;
      const usage =
        typeof slot === 'string' ? this.#templateAt(index).chunk.usage : usageOfEvents([slot.event]);
      if (isRecord(usage)) return usage;
    }
    return null;
  }

  #templateAt(index: number): ChunkTemplate {
    let found: Run | undefined;
    for (const run of this.#runs) if (run.start <= index) found = run;
    return (found as Run).template;
  }

  /**
   * Adds the strings of every event, in order, under `node` (the path of the
   * recorded events), as collecting the parsed events would: a matched chunk
   * adds its template's strings and its own text where the template's text was.
   * For a scan only (is anything there?): the texts of a stretch of matched
   * chunks are added as one string, the text they make together, which is all a
   * scan reads (a line to scrub is collected afresh, its events parsed).
   */
  collectInto(node: PathNode, names: Map<string, string>): void {
    const element = node.element(null);
    const plans = new Map<ChunkTemplate, Plan>();
    const planFor = (template: ChunkTemplate) => {
      let plan = plans.get(template);
      if (plan === undefined) {
        plan = planOf(template, element, names);
        plans.set(template, plan);
      }
      return plan;
    };
    this.#each(
      (slot) => {
        if (slot.template === null) collectInto(slot.expanded, element, names);
        else {
          for (const step of planFor(slot.template).steps) {
            if (step.content) step.node.add(slot as unknown as Record<string, unknown>, 'text', false);
            else step.node.add(step.holder, step.key, false);
          }
        }
      },
      (start, end, template) => {
        const plan = planFor(template);
        if (plan.distinct) {
          // Each string of the template on a node of its own: added once with its count, the texts joined.
          for (const step of plan.steps) {
            if (!step.content) step.node.addTimes(step.holder, step.key, end - start);
            else step.node.add([this.#slots.slice(start, end).join('')], 0, false);
          }
          return;
        }
        for (let index = start; index < end; index += 1) {
          for (const step of plan.steps) {
            if (step.content) step.node.add(this.#slots, index, false);
            else step.node.add(step.holder, step.key, false);
          }
        }
      },
    );
  }

  /** Every event with its data parsed (a matched chunk parsed now), for scrubbing in place. */
  expandAll(): ExpandedEvent[] {
    const recorded = this.recorded;
    return this.#slots.map((slot, index) =>
      typeof slot !== 'string' && slot.expanded !== null ? slot.expanded : expandEvent(recorded[index]),
    );
  }

  /** The events as the line keeps them when nothing was scrubbed: each as it came, or written back as standard JSON. */
  unchanged(): RecordedStreamEvent[] {
    const recorded = this.recorded;
    return this.#slots.map((slot, index) => {
      const event = recorded[index] as RecordedStreamEvent;
      if (typeof slot === 'string' || slot.asIs || !('data' in event)) return event;
      const expanded = slot.expanded ?? expandEvent(event);
      if (!('json' in expanded)) return event;
      return { ...event, data: JSON.stringify(expanded.json) };
    });
  }

  /**
   * The events (as `unchanged` gives them) as a line writes them compactly (see
   * `LineEvents`): each run of events in a row that matched one template with
   * known pieces and are kept as they came, as one `{t, ms, text}`; null when
   * there is none.
   */
  lineEvents(): LineEvents | null {
    const numbers = new Map<ChunkTemplate, number>();
    const pairs: Array<readonly [string, string]> = [];
    const written: unknown[] = [];
    let run: { t: number; ms: unknown[]; text: string[] } | null = null;
    const extend = (template: ChunkTemplate, ms: unknown[], text: string[]) => {
      let number = numbers.get(template);
      if (number === undefined) {
        number = pairs.length;
        numbers.set(template, number);
        pairs.push(template.pieces as readonly [string, string]);
      }
      if (run?.t === number) {
        // One by one: a stretch can be 100,000 long, past what a spread's arguments may be.
        for (const delay of ms) run.ms.push(delay);
        for (const piece of text) run.text.push(piece);
        return;
      }
      run = { t: number, ms, text };
      written.push(run);
    };
    this.#each(
      (slot) => {
        const compact = compactable(slot);
        if (compact === null) {
          written.push(slot.event);
          run = null;
        } else extend(compact.template, [slot.event.ms], [compact.text]);
      },
      (start, end, template) => {
        extend(template, this.#delays.slice(start, end), this.#slots.slice(start, end) as string[]);
      },
    );
    return pairs.length === 0 ? null : { templates: pairs, events: written };
  }
}

/**
 * A held event's template and text when its line may write it compactly: matched,
 * kept as it came, exactly the template's bytes around its text; else null.
 */
function compactable(held: Held): { template: ChunkTemplate; text: string } | null {
  const { event, template, text } = held;
  const pieces = template?.pieces;
  if (template === null || !held.asIs || pieces == null || text === null || !('data' in event)) return null;
  return event.data.length === pieces[0].length + text.length + 2 + pieces[1].length
    ? { template, text }
    : null;
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

/** A template's plan: its steps, and whether each step's node is its own (then a stretch adds each once, counted). */
interface Plan {
  readonly steps: readonly PlanStep[];
  readonly distinct: boolean;
}

/** The strings a template's chunk adds, as a parsed event `{ ms, json }` of it would, its content marked. */
function planOf(template: ChunkTemplate, element: PathNode, names: Map<string, string>): Plan {
  const chunk = template.chunk;
  const choice = (chunk.choices as unknown[])[0];
  const delta = isRecord(choice) ? choice.delta : undefined;
  const steps: PlanStep[] = [];
  const add: AddPiece = (node, holder, key) => {
    steps.push({ node, holder, key, content: holder === delta && key === 'content' });
  };
  collectInto({ ms: 0, json: chunk }, element, names, add);
  return { steps, distinct: new Set(steps.map((step) => step.node)).size === steps.length };
}
