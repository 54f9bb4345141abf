// The PostgreSQL server's CPU time, for bench:ledger (Linux: /proc): its postmaster's own, its ended children's
// (backends that closed), and its live children's (backends, WAL writer, checkpointer). Read around a row and
// around pgbench, it says how much of the server one pair costs beside one hot-row transaction: on a machine
// whose cores are all busy, that, more than the row's lock, bounds the pairs per second.
import { readdirSync, readFileSync } from 'node:fs';
import { connectPg } from './budget-dependencies.js';

/** utime, stime, cutime, cstime and ppid of a process, or null once it is gone. */
function statOf(pid: number): { ppid: number; own: number; children: number } | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const tick = (index: number) => (Number(fields[index]) * 1000) / 100;
    return { ppid: Number(fields[1]), own: tick(11) + tick(12), children: tick(13) + tick(14) };
  } catch {
    return null;
  }
}

/** A reader of the server's CPU time in ms so far (the server at `url`, on this machine). */
export async function serverCpu(url: string): Promise<() => number> {
  const client = await connectPg(url);
  const backend = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
  // Read while the backend lives: it exits when the client ends.
  const postmaster = statOf(backend)?.ppid;
  await client.end();
  if (postmaster === undefined)
    throw new Error(`bench:ledger: no /proc entry for PostgreSQL's backend ${backend}`);
  return () => {
    const main = statOf(postmaster);
    let total = (main?.own ?? 0) + (main?.children ?? 0);
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const child = statOf(Number(name));
      if (child?.ppid === postmaster) total += child.own;
    }
    return total;
  };
}
