// Reads a V8 `.cpuprofile` (what `node --cpu-prof` writes) and sums the self time
// of each function (the samples taken while it was on top of the stack), then
// groups them by where the code lives: ours (a @switchboard package), the
// `openai` SDK, other dependencies, Node's own JavaScript, and V8's pseudo-frames
// (garbage collector, program, idle).

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

/** The parts of a `.cpuprofile` the summary reads. */
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** One function's self time. */
interface SelfTime {
  readonly name: string;
  readonly where: string;
  readonly group: string;
  readonly micros: number;
}

/** Where a frame's code lives, by its script's address. */
function groupOf(url: string, functionName: string): string {
  if (url === '') {
    if (functionName === '(garbage collector)') return 'garbage collector';
    if (functionName === '(idle)') return 'idle (waiting for I/O)';
    if (functionName === '(program)') return 'V8 and native code (program)';
    return 'native (no script)';
  }
  const switchboard = /\/packages\/([^/]+)\/(?:dist|src)\//.exec(url);
  if (switchboard !== null) return `ours: ${switchboard[1]}`;
  if (/\/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?openai\//.test(url)) return '`openai` SDK';
  if (url.includes('/node_modules/')) return 'other dependencies';
  if (url.startsWith('node:')) return 'Node internals (JavaScript)';
  if (url.includes('/bench/src/')) return 'the bench loop';
  return 'other';
}

function shortWhere(url: string, line: number): string {
  const trimmed = url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?/, '')
    .replace(/^.*\/packages\//, '');
  return trimmed === '' ? '' : `${trimmed}:${line + 1}`;
}

/** Self time per function (merged by name and place), most first, and the total sampled. */
function selfTimes(profile: CpuProfile): { functions: SelfTime[]; totalMicros: number } {
  const byNode = new Map<number, number>();
  let totalMicros = 0;
  profile.samples.forEach((nodeId, index) => {
    // timeDeltas[i] is the time before sample i: the time since the previous sample,
    // which V8 charges to this sample's frame.
    const delta = Math.max(profile.timeDeltas[index] ?? 0, 0);
    byNode.set(nodeId, (byNode.get(nodeId) ?? 0) + delta);
    totalMicros += delta;
  });
  const merged = new Map<string, SelfTime>();
  for (const node of profile.nodes) {
    const micros = byNode.get(node.id);
    if (micros === undefined) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName === '' ? '(anonymous)' : functionName;
    const where = shortWhere(url, lineNumber);
    const key = `${name} ${where}`;
    const held = merged.get(key);
    merged.set(key, {
      name,
      where,
      group: groupOf(url, functionName),
      micros: (held?.micros ?? 0) + micros,
    });
  }
  const functions = [...merged.values()].sort((a, b) => b.micros - a.micros);
  return { functions, totalMicros };
}

/**
 * Markdown tables: self time by group, then the `top` functions, in µs per unit
 * of work (`units` calls or streams; 1 gives the profile's totals). Idle time is
 * listed but left out of the busy total.
 */
export function summarize(
  profile: CpuProfile,
  options: { top: number; units: number; unit: string },
): string {
  const { functions, totalMicros } = selfTimes(profile);
  const per = (micros: number) => (micros / options.units).toFixed(1);
  const groups = new Map<string, number>();
  for (const entry of functions) groups.set(entry.group, (groups.get(entry.group) ?? 0) + entry.micros);
  const idle = groups.get('idle (waiting for I/O)') ?? 0;
  const busy = totalMicros - idle;
  const share = (micros: number) => `${((micros / busy) * 100).toFixed(1)}%`;
  const lines = [
    `sampled ${(totalMicros / 1000).toFixed(0)} ms, of which busy ${(busy / 1000).toFixed(0)} ms; figures in µs per ${options.unit} over ${options.units}`,
    '',
    `| where | self µs/${options.unit} | share of busy |`,
    '|---|---:|---:|',
    ...[...groups.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(
        ([group, micros]) =>
          `| ${group} | ${per(micros)} | ${group.startsWith('idle') ? '' : share(micros)} |`,
      ),
    '',
    `| function | where | group | self µs/${options.unit} | share of busy |`,
    '|---|---|---|---:|---:|',
    ...functions
      .filter((entry) => !entry.group.startsWith('idle'))
      .slice(0, options.top)
      .map(
        (entry) =>
          `| \`${entry.name}\` | ${entry.where} | ${entry.group} | ${per(entry.micros)} | ${share(entry.micros)} |`,
      ),
  ];
  return lines.join('\n');
}
