import { readdir, readFile, writeFile } from 'node:fs/promises';

// What /proc says of a process under test: its memory, its CPU time, its node children.

/** Peak resident set size (VmHWM) of a process, in bytes. */
export async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** Resident set size (VmRSS) of a process now, in bytes. */
export async function currentRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** CPU time a process has used, all its threads (utime + stime, in clock ticks of 10 ms), in ms. */
export async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resets the process's peak RSS to its current RSS (Linux `clear_refs` 5) and answers that RSS. */
export async function resetPeakRss(pid: number): Promise<number> {
  await writeFile(`/proc/${pid}/clear_refs`, '5');
  return currentRss(pid);
}

/** The pids of a process's children that run node, but not the moderation service (`npm start`'s child): its web processes. */
export async function nodeChildren(pid: number): Promise<number[]> {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const pids = new Set<number>();
  for (const task of tasks) {
    const list = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
    for (const child of list.split(' ').filter(Boolean)) pids.add(Number(child));
  }
  const node: number[] = [];
  for (const child of pids) {
    const cmdline = await readFile(`/proc/${child}/cmdline`, 'utf8').catch(() => '');
    if (/(^|\/)node\0/.test(cmdline) && !cmdline.includes('moderation/main')) node.push(child);
  }
  return node;
}
