/** Where a command writes and what environment it sees; tests and the entry point supply their own. */
export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Record<string, string | undefined>;
  /** Colour output (off when not a terminal or when NO_COLOR is set). */
  readonly color: boolean;
}
