import v8 from 'node:v8';

/** The old generation may grow to this many times its live size before the next full GC. */
const STREAMING_HEAP_GROWTH = 3;

/**
 * Sets V8's heap growth for a process that streams file bodies (web, workers).
 *
 * V8 picks each next old-generation limit from how fast the program allocated there. A process that
 * mostly streams allocates little there, so the limit ends up only ~24 MB above a 40 MB live heap.
 * But every chunk read from a socket is a new external ArrayBuffer, and V8 counts external memory
 * allocated since the last full GC against that same limit, while only a scavenge every 32 MB of
 * chunks frees them: a 512 MiB upload then paid a full mark-compact every ~100 ms (~1 s of GC
 * threads) and ran at half the speed. A fixed factor keeps the limit far enough above the live heap;
 * it bounds garbage, not live memory. An operator's own --heap-growing-percent wins.
 */
export function setStreamingHeapGrowth(): void {
  if (process.execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return;
  v8.setFlagsFromString(`--heap-growing-percent=${(STREAMING_HEAP_GROWTH - 1) * 100}`);
}
