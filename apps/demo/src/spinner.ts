const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\u001b[2K';

/** A running spinner: tell it the attempt number, stop it before printing. */
export interface Spinner {
  attempt(attempt: number): void;
  stop(): void;
}

/** Options of {@link startSpinner}. */
export interface SpinnerOptions {
  /** Where frames go (stderr). */
  write: (text: string) => void;
  /** Only a terminal gets frames; otherwise the spinner writes nothing at all. */
  enabled: boolean;
  /** What is being waited for, e.g. `primary-flash via primary`. */
  label: string;
  /** Milliseconds between frames; default 100. */
  intervalMs?: number;
  /** The clock, for tests; default `Date.now`. */
  now?: () => number;
}

/** Shows `⠋ label · 1.2 s · attempt 2` on one line, redrawn in place, until stopped. */
export function startSpinner(options: SpinnerOptions): Spinner {
  if (!options.enabled) return { attempt() {}, stop() {} };
  const now = options.now ?? Date.now;
  const started = now();
  let frame = 0;
  let attempt = 1;
  const draw = () => {
    const seconds = ((now() - started) / 1000).toFixed(1);
    const glyph = FRAMES[frame++ % FRAMES.length];
    options.write(`${CLEAR_LINE}${glyph} ${options.label} · ${seconds} s · attempt ${attempt}`);
  };
  draw();
  const timer = setInterval(draw, options.intervalMs ?? 100);
  // The spinner alone must never keep the process alive.
  timer.unref();
  return {
    attempt(next) {
      attempt = next;
      draw();
    },
    stop() {
      clearInterval(timer);
      options.write(CLEAR_LINE);
    },
  };
}
