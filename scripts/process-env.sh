# Sourced by the Procfile lines and the npm scripts right before they exec node: the environment a
# process must have when it starts (it is read once then, so it cannot be set from inside). POSIX sh.
#
# glibc's allocator keeps up to 64 MiB of freed heap instead of handing it back to the kernel past
# 128 KiB. A big upload reads its body in ~64 KiB chunks freed in bursts; with glibc's default the
# next chunks page that memory in again (11,000-18,000 page faults per 512 MiB upload in slow bench
# rounds, about half the speed); with this, tens of faults and ~20 MB more peak RSS. An operator's own
# GLIBC_TUNABLES wins; other C libraries ignore it.
#
# The same lines give web and worker `node --heap-growing-percent=200`: the old generation may grow to
# three times its live size before the next full GC. V8 picks the next limit from how fast a program
# allocates there, which for a process that mostly streams is ~24 MB above a 40 MB live heap; but V8
# counts every socket chunk (an external ArrayBuffer) against that limit too, so a 512 MiB upload paid
# a full mark-compact every ~100 ms and ran at half speed. The flag bounds garbage, not live memory.
# (NODE_OPTIONS may not carry it; to change it, change the command.)
: "${GLIBC_TUNABLES:=glibc.malloc.trim_threshold=67108864}"
export GLIBC_TUNABLES
