/** Where a command writes and what environment it sees; tests and the entry point supply their own. */
export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Record<string, string | undefined>;
  /** Colour on stdout (see `colorSupport`: NO_COLOR, FORCE_COLOR, a terminal). */
  readonly color: boolean;
  /** Colour on stderr, decided apart: stderr redirected to a file gets none. Default: `color`. */
  readonly errorColor?: boolean;
  /** Whether stderr is a terminal: only then does a call show a spinner. Default false. */
  readonly stderrIsTty?: boolean;
  /** Columns of the terminal stdout writes to, when it is one: a report's chart fills them. */
  readonly columns?: number;
  /** Reads all of stdin, for `chat -`; absent means stdin is not available. */
  readonly readStdin?: () => Promise<string>;
}
