// Run by report-journal.big.test.ts with a small heap: reads a journal through
// the built package and prints the figures and how far the heap grew.
import { ReportAccumulator, readJournal } from '../../dist/index.js';

const [path] = process.argv.slice(2);
globalThis.gc();
const baseline = process.memoryUsage().heapUsed;
let peakGrowth = 0;
let read = 0;
const accumulator = new ReportAccumulator();
const issues = [];
const lines = readJournal(path, {
  onIssue: (issue) => {
    accumulator.skip(issue.line);
    issues.push(issue.message);
  },
});
for await (const line of lines) {
  accumulator.add(line);
  read += 1;
  if (read % 10_000 === 0) {
    globalThis.gc();
    peakGrowth = Math.max(peakGrowth, process.memoryUsage().heapUsed - baseline);
  }
}
const figures = accumulator.result();
console.log(JSON.stringify({ read, peakGrowth, issues, figures }));
