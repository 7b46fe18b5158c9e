# Sourced by the Procfile lines and npm scripts right before they exec node: the environment a
# process must have when it starts (read once then, so it cannot be set from inside). POSIX sh.
#
# glibc's allocator keeps up to 64 MiB of freed heap instead of handing it back to the kernel past
# 128 KiB. A big upload reads its body in ~64 KiB chunks freed in bursts; with glibc's default the next
# chunks page that memory in again (11,000-18,000 page faults per 512 MiB upload in slow bench rounds,
# about half the speed); with this, tens of faults and ~20 MB more peak RSS. An operator's own
# GLIBC_TUNABLES wins; other C libraries ignore it.
: "${GLIBC_TUNABLES:=glibc.malloc.trim_threshold=67108864}"
export GLIBC_TUNABLES
