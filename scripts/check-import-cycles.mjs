// No import circle inside any workspace package's src/: every relative import
// (`import`, `import type`, `export ... from`, `import()`) is followed, and each
// strongly connected group of two or more files, or a file importing itself, is
// reported with one circle through it. A circle makes the load order matter (a
// class read before its module ran is `undefined`) and ties files that should be
// read on their own; a shared type belongs in a small file of its own.
//
// Usage: node scripts/check-import-cycles.mjs [folder ...]   (default: every workspace package's src)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { root, workspacePackages } from './workspace-packages.mjs';

/** Every .ts/.tsx/.mts/.cts file below `dir`, tests included (a test file in a circle is one too). */
function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.[cm]?tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names (`./x.js` is `./x.ts` in the source), or undefined. */
function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.([cm]?)jsx?$/, '');
  const candidates = [
    base,
    `${stem}.ts`,
    `${stem}.tsx`,
    `${stem}.mts`,
    `${stem}.cts`,
    join(base, 'index.ts'),
  ];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile());
}

/** Maps each file to the files it imports. */
function importGraph(files) {
  const graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map(({ fileName }) => resolveSpecifier(file, fileName))
      .filter((target) => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Tarjan's strongly connected components, iteratively (no recursion limit). */
function stronglyConnected(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work = [[start, 0]];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work.at(-1);
      const [node, next] = frame;
      const edges = graph.get(node) ?? [];
      if (next < edges.length) {
        frame[1]++;
        const target = edges[next];
        if (!graph.has(target)) continue;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push([target, 0]);
        } else if (onStack.has(target)) {
          low.set(node, Math.min(low.get(node), index.get(target)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work.at(-1)[0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === index.get(node)) {
        const group = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          group.push(member);
        } while (member !== node);
        if (group.length > 1 || edges.includes(node)) groups.push(group.sort());
      }
    }
  }
  return groups;
}

/** One circle through the group's first file, found breadth-first inside the group. */
function circleThrough(graph, group) {
  const members = new Set(group);
  const start = group[0];
  const previous = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const target of graph.get(node) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]));
        return [...path, start];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

const folders =
  process.argv.length > 2
    ? process.argv.slice(2).map((folder) => resolve(folder))
    : workspacePackages()
        .map((pkg) => join(pkg.dir, 'src'))
        .filter((dir) => existsSync(dir));

let files = 0;
const circles = [];
for (const folder of folders) {
  const graph = importGraph(sourceFiles(folder));
  files += graph.size;
  for (const group of stronglyConnected(graph)) {
    circles.push(
      circleThrough(graph, group)
        .map((file) => relative(root, file))
        .join(' -> '),
    );
  }
}
if (circles.length > 0) {
  console.log(`${circles.length} import circle(s):\n${circles.map((circle) => `  ${circle}`).join('\n')}`);
  process.exitCode = 1;
} else {
  console.log(`no import circle in ${files} files of ${folders.length} folders`);
}
