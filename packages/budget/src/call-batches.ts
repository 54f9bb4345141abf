/** One batch: the items asked while the one before it was on the server, and their callers. */
interface Batch<Item, Answer> {
  readonly items: Item[];
  readonly settlers: { resolve(answer: Answer): void; reject(error: unknown): void }[];
}

/**
 * Calls of one kind (`key`) sent one statement at a time: a call asked while none of its kind is on the
 * server goes at once, alone; the calls asked while one is go together once it has answered, up to `max` a
 * statement (the rest in the next). So concurrent callers of one process meet on the server's hot rows as one
 * transaction instead of many, and a lone caller waits for nothing. A statement's error is each of its
 * callers' error: what it wrote, it wrote for all or none.
 */
export class CallBatches<Item, Answer> {
  readonly #send: (items: readonly Item[]) => Promise<readonly Answer[]>;
  readonly #max: number;
  /** Per key with a statement on the server: the batches waiting their turn, in order. */
  readonly #queues = new Map<string, Batch<Item, Answer>[]>();

  constructor(send: (items: readonly Item[]) => Promise<readonly Answer[]>, max: number) {
    this.#send = send;
    this.#max = max;
  }

  run(key: string, item: Item): Promise<Answer> {
    const queue = this.#queues.get(key);
    if (queue === undefined) {
      this.#queues.set(key, []);
      const answer = this.#sent([item]).then((answers) => answers[0] as Answer);
      const next = () => this.#next(key);
      answer.then(next, next);
      return answer;
    }
    let batch = queue.at(-1);
    if (batch === undefined || batch.items.length >= this.#max) {
      batch = { items: [], settlers: [] };
      queue.push(batch);
    }
    const joined = batch;
    return new Promise<Answer>((resolve, reject) => {
      joined.items.push(item);
      joined.settlers.push({ resolve, reject });
    });
  }

  /** `send`, its answers checked to be one per item. */
  async #sent(items: readonly Item[]): Promise<readonly Answer[]> {
    const answers = await this.#send(items);
    if (answers.length !== items.length) {
      throw new Error(`${answers.length} answers for ${items.length} calls sent together`);
    }
    return answers;
  }

  #next(key: string): void {
    const queue = this.#queues.get(key);
    const batch = queue?.shift();
    if (batch === undefined) {
      this.#queues.delete(key);
      return;
    }
    const next = () => this.#next(key);
    this.#sent(batch.items).then(
      (answers) => {
        for (const [index, settler] of batch.settlers.entries()) settler.resolve(answers[index] as Answer);
        next();
      },
      (error: unknown) => {
        for (const settler of batch.settlers) settler.reject(error);
        next();
      },
    );
  }
}
