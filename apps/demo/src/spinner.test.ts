import { describe, expect, it } from 'vitest';
import { startSpinner } from './spinner.js';

function terminal() {
  const written: string[] = [];
  return { write: (text: string) => written.push(text), text: () => written.join('') };
}

describe('startSpinner', () => {
  it('on a terminal, draws the label, the elapsed time and the attempt, and clears its line when stopped', () => {
    const stream = terminal();
    let now = 1_000;
    const spinner = startSpinner({
      write: stream.write,
      enabled: true,
      label: 'primary-flash via primary',
      now: () => now,
    });
    now = 3_400;
    spinner.attempt(2);
    spinner.stop();
    expect(stream.text()).toBe(
      '\r\u001b[2K⠋ primary-flash via primary · 0.0 s · attempt 1' +
        '\r\u001b[2K⠙ primary-flash via primary · 2.4 s · attempt 2' +
        '\r\u001b[2K',
    );
  });

  it('redraws on its own while the call runs', async () => {
    const stream = terminal();
    const spinner = startSpinner({ write: stream.write, enabled: true, label: 'x', intervalMs: 5 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    spinner.stop();
    expect(stream.text().split('attempt 1').length).toBeGreaterThan(2);
  });

  it('off a terminal, writes nothing at all', async () => {
    const stream = terminal();
    const spinner = startSpinner({ write: stream.write, enabled: false, label: 'x', intervalMs: 5 });
    spinner.attempt(2);
    await new Promise((resolve) => setTimeout(resolve, 30));
    spinner.stop();
    expect(stream.text()).toBe('');
  });
});
