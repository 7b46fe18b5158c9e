# Sourced by the Procfile lines and the npm scripts right before they exec node: what a process must
# have in its environment when it starts (read once then, so it cannot be set from inside). POSIX sh.
# Figures and the full why: docs/decisions.md, "Running in production".

# glibc keeps up to 64 MiB of freed heap, so the chunks of a big upload do not fault memory in again
# and again; and buffers below 4 MiB come from that heap (setting the trim threshold turns off
# glibc's own raising of the mmap threshold: each 256 KiB read of a served file was an mmap, half the
# speed of serving big files). An operator's own GLIBC_TUNABLES wins; other C libraries ignore it.
# Two arenas: one per libvips (sharp) thread, each keeping that much, made the worker's RSS climb.
: "${GLIBC_TUNABLES:=glibc.malloc.trim_threshold=67108864:glibc.malloc.mmap_threshold=4194304:glibc.malloc.arena_max=2}"
export GLIBC_TUNABLES
# Stack traces in logs name the TypeScript sources (dist/ carries source maps).
case " ${NODE_OPTIONS:-} " in *" --enable-source-maps "*) ;; *) export NODE_OPTIONS="--enable-source-maps${NODE_OPTIONS:+ $NODE_OPTIONS}" ;; esac
# Node 22: AsyncLocalStorage (the request id on every log line) without async and promise hooks, as
# Node 24 does by default; without it every promise of a request through the app costs about twice as
# much (docs/benchmark-notes.md). Other versions have no such flag (20) or need none (24).
case "$(node --version 2>/dev/null)" in
  v22.*) case " ${NODE_OPTIONS:-} " in *" --experimental-async-context-frame "*) ;; *) export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--experimental-async-context-frame" ;; esac ;;
esac
