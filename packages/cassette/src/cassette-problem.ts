/** One thing wrong with a cassette, as `checkCassette` reports it. */
export interface CassetteProblem {
  /** The 1-based line, or null for the file. */
  readonly line: number | null;
  /** What is wrong; never the secret itself. */
  readonly message: string;
}
