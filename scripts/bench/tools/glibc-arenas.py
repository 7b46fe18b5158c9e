# glibc's malloc arenas of a running process, read without stopping it for more than a moment and
# without calling into it: `gdb -p PID -batch -x scripts/bench/tools/glibc-arenas.py` (needs libc's
# debug symbols, as Debian ships them). Per arena: the heap's extent (`system`), the top chunk, the
# free chunks in its bins, and what is allocated; a rising extent over a flat allocation is memory
# the heap cannot give back (fragmentation). The soak's notes (docs/benchmark-notes.md) used it.
import gdb

MiB = 1024 * 1024


def chunk_size(p):
    return int(p.dereference()['mchunk_size']) & ~7


def free_in_fastbins(arena):
    total = 0
    for i in range(10):
        p = arena['fastbinsY'][i]
        while int(p) != 0:
            total += chunk_size(p)
            fd = p.dereference()['fd']
            # glibc 2.32+ stores fastbin links mangled ("safe linking").
            p = gdb.Value((int(fd.address) >> 12) ^ int(fd)).cast(p.type)
    return total


def free_in_bins(arena):
    total, count = 0, 0
    bins = arena['bins']
    for i in range(1, 128):
        head = int(bins[(i - 1) * 2].address) - 16
        p = bins[(i - 1) * 2]
        while int(p) != head:
            total += chunk_size(p)
            count += 1
            p = p.dereference()['fd']
    return total, count


main = gdb.parse_and_eval('&main_arena')
arena, n, lines = main, 0, []
while True:
    a = arena.dereference()
    system, top = int(a['system_mem']), chunk_size(a['top'])
    fast = free_in_fastbins(a)
    binned, count = free_in_bins(a)
    lines.append('arena %d: system %.1f MiB, top %.1f, free in bins %.1f (%d chunks), allocated %.1f'
                 % (n, system / MiB, top / MiB, (fast + binned) / MiB, count, (system - top - fast - binned) / MiB))
    arena, n = a['next'], n + 1
    if int(arena) == int(main):
        break
mp = gdb.parse_and_eval('mp_')
lines.append('mmapped %.1f MiB in %d mappings' % (int(mp['mmapped_mem']) / MiB, int(mp['n_mmaps'])))
print('\n'.join(lines))
