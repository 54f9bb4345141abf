import { usageOfEvents } from './call-pricing.js';
import type { RecordedStreamEvent } from './cassette-entry.js';
import { type ChunkTemplate, ChunkTemplates } from './chunk-template.js';
import { type LineEvents, RunList } from './compact-events.js';
import { type AddPiece, collectInto, isRecord, type PathNode } from './json-paths.js';
import { type ExpandedEvent, expandEvent, readsAsWritten } from './json-secrets.js';
import { TextStretch } from './text-stretch.js';
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

/**
 * A recorded stream's events, each read as it arrives, so a provider's pace
 * hides the work and the stream's end is left with one scan and one write: a
 * JSON data parsed once (what the scan looks into), or, when it is the stream's
 * common chunk with another text (see `ChunkTemplate`), only that text taken;
 * and whether the data can be kept as it came (see `readsAsWritten`).
 */
export class ArrivedEvents {
  /**
   * The events in order: matched chunks kept as they came in a row, as a stretch of their
   * texts and delays (their data is their template's bytes around each text, see
   * `TextStretch`: not held, or a long stream's events would keep every byte of the wire
   * alive to its end); any other event, held.
   */
  readonly #segments: Array<Held | TextStretch> = [];
  /** The stretch matched chunks are added to (the last segment), or null. */
  #stretch: TextStretch | null = null;
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
    if (template === null || text === null) {
      this.#parsed({ ms, data: event.data }, true);
      return;
    }
    let stretch = this.#stretch;
    if (stretch === null || stretch.template !== template) {
      if (this.#templateAsIs.get(template) !== true || template.pieces === null) {
        this.#matched({ ms, data: event.data }, { template, text });
        return;
      }
      stretch = new TextStretch(template);
      this.#segments.push(stretch);
      this.#stretch = stretch;
    }
    if (this.#recorded !== null) this.#recorded = null;
    stretch.add(ms, text);
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
    this.#segments.push(held);
    this.#stretch = null;
  }

  /** Calls `held` with every held event and `texts` with every stretch, in order, with the index of its (first) event. */
  #each(
    held: (slot: Held, index: number) => void,
    texts: (stretch: TextStretch, start: number) => void,
  ): void {
    let index = 0;
    for (const segment of this.#segments) {
      if (segment instanceof TextStretch) {
        texts(segment, index);
        index += segment.count;
      } else {
        held(segment, index);
        index += 1;
      }
    }
  }

  /** Every event as recorded (made whole when first asked for). */
  get recorded(): RecordedStreamEvent[] {
    if (this.#recorded === null) {
      const recorded: RecordedStreamEvent[] = [];
      this.#each(
        (slot) => recorded.push(slot.event),
        (stretch) => {
          const [before, after] = stretch.template.pieces as readonly [string, string];
          const texts = stretch.texts();
          const delays = stretch.delays();
          for (let index = 0; index < texts.length; index += 1) {
            recorded.push({ ms: delays[index] as number, data: `${before}"${texts[index]}"${after}` });
          }
        },
      );
      this.#recorded = recorded;
    }
    return this.#recorded;
  }

  /** Whether each event is kept as it came (see `readsAsWritten`): one of a stretch always is. */
  get asIs(): boolean[] {
    const asIs: boolean[] = [];
    this.#each(
      (slot) => asIs.push(slot.asIs),
      (stretch) => {
        for (let index = 0; index < stretch.count; index += 1) asIs.push(true);
      },
    );
    return asIs;
  }

  /** The `usage` of the last event that carried one (see `usageOfEvents`), a stretch's being its template's. */
  usage(): unknown {
    for (let index = this.#segments.length - 1; index >= 0; index -= 1) {
      const segment = this.#segments[index] as Held | TextStretch;
      const usage =
        segment instanceof TextStretch ? segment.template.chunk.usage : usageOfEvents([segment.event]);
      if (isRecord(usage)) return usage;
    }
    return null;
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
      (stretch) => {
        const plan = planFor(stretch.template);
        if (plan.distinct) {
          // Each string of the template on a node of its own: added once with its count, the texts joined.
          for (const step of plan.steps) {
            if (!step.content) step.node.addTimes(step.holder, step.key, stretch.count);
            else step.node.add([stretch.joined()], 0, false);
          }
          return;
        }
        const texts = stretch.texts() as string[];
        for (let index = 0; index < texts.length; index += 1) {
          for (const step of plan.steps) {
            if (step.content) step.node.add(texts, index, false);
            else step.node.add(step.holder, step.key, false);
          }
        }
      },
    );
  }

  /** Every event with its data parsed (a matched chunk parsed now), for scrubbing in place. */
  expandAll(): ExpandedEvent[] {
    const recorded = this.recorded;
    const expanded: ExpandedEvent[] = [];
    this.#each(
      (slot, index) => expanded.push(slot.expanded ?? expandEvent(recorded[index] as RecordedStreamEvent)),
      (stretch, start) => {
        for (let index = start; index < start + stretch.count; index += 1) {
          expanded.push(expandEvent(recorded[index] as RecordedStreamEvent));
        }
      },
    );
    return expanded;
  }

  /** The events as the line keeps them when nothing was scrubbed: each as it came, or written back as standard JSON. */
  unchanged(): RecordedStreamEvent[] {
    const recorded = this.recorded;
    const events: RecordedStreamEvent[] = [];
    this.#each(
      (slot) => events.push(unchangedOf(slot)),
      (stretch, start) => {
        for (let index = start; index < start + stretch.count; index += 1) {
          events.push(recorded[index] as RecordedStreamEvent);
        }
      },
    );
    return events;
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
    let run: { t: number; ms: RunList<number>; text: RunList<string> } | null = null;
    // A run of the same template as the last one goes on (a held event matched in between, say).
    const runOf = (template: ChunkTemplate) => {
      let number = numbers.get(template);
      if (number === undefined) {
        number = pairs.length;
        numbers.set(template, number);
        pairs.push(template.pieces as readonly [string, string]);
      }
      if (run?.t !== number) {
        run = { t: number, ms: new RunList(), text: new RunList() };
        written.push(run);
      }
      return run;
    };
    this.#each(
      (slot) => {
        const compact = compactable(slot);
        if (compact === null) {
          // As `unchanged` keeps it: an event that does not read as written (a key given twice) is
          // written back as standard JSON, never as it came, whose hidden part no scan read.
          written.push(unchangedOf(slot));
          run = null;
          return;
        }
        const into = runOf(compact.template);
        into.ms.push(slot.event.ms);
        into.text.push(compact.text);
      },
      (stretch) => {
        const into = runOf(stretch.template);
        into.ms.pushWritten(stretch.delaysJson(), () => stretch.delays());
        into.text.pushWritten(stretch.quoted(), () => stretch.texts());
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

/** A held event as the line keeps it when nothing was scrubbed: as it came, or written back as standard JSON. */
function unchangedOf(held: Held): RecordedStreamEvent {
  const event = held.event;
  if (held.asIs || !('data' in event)) return event;
  const expanded = held.expanded ?? expandEvent(event);
  return 'json' in expanded ? { ...event, data: JSON.stringify(expanded.json) } : event;
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
