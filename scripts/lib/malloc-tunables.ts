/**
 * glibc's allocator setting for the processes that stream file bodies, as `npm start`, `npm run
 * web|worker` and the Procfile set it (GLIBC_TUNABLES is read once, when a process starts, so it
 * cannot be set from inside; an operator's own GLIBC_TUNABLES wins).
 *
 * Each socket read of a big upload is a fresh ~64 KiB chunk that lives until the next scavenge, so
 * the heap grows and shrinks by ~20 MB many times per upload. By default glibc hands freed memory
 * at the top of the heap back to the kernel past 128 KiB, and the next chunks fault it in again:
 * 11,000-18,000 page faults per 512 MiB upload in slow bench rounds, the web thread ~0.6 instead of
 * ~0.4 s. Keeping up to 64 MiB of freed heap took that to tens of faults; the web process's peak RSS
 * rose ~20 MB during a 512 MiB upload instead of 0 (bench target: +32 MB at most).
 */
export const MALLOC_TUNABLES = 'glibc.malloc.trim_threshold=67108864';
