# Sourced by the Procfile lines and npm scripts right before they exec node: the environment a process
# must have when it starts (read once then, so it cannot be set from inside). POSIX sh.
#
# glibc keeps up to 64 MiB of freed heap instead of handing it back to the kernel past 128 KiB: the
# socket chunks of a big upload are freed in bursts, and with glibc's default the next ones fault that
# memory in again, at about half the upload speed (docs/decisions.md, Build). An operator's own
# GLIBC_TUNABLES wins; other C libraries ignore it.
: "${GLIBC_TUNABLES:=glibc.malloc.trim_threshold=67108864}"
export GLIBC_TUNABLES
