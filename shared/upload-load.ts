/**
 * Uploads in flight in this process. Background work that can wait (moderation checks) watches it
 * and makes room while uploads pour in, then catches up: where web and workers share a process and
 * its cores (`npm start`), every check run during a burst is CPU taken from the uploads. A worker
 * process of its own never sees an upload, so it always runs at full speed.
 */
export class UploadLoad {
  private inFlight = 0;
  private readonly listeners = new Set<(busy: boolean) => void>();

  /** `busyAt` uploads at once count as a burst: a few, on a machine of a few cores. */
  constructor(private readonly busyAt = 4) {}

  get uploads(): number {
    return this.inFlight;
  }

  get busy(): boolean {
    return this.inFlight >= this.busyAt;
  }

  /** Counts one upload until the returned function is called (once; later calls do nothing). */
  enter(): () => void {
    this.set(this.inFlight + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.set(this.inFlight - 1);
    };
  }

  /** Resolves once no burst is on, or after `maxMs` at the latest. */
  quiet(maxMs: number): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stop();
        resolve();
      };
      const timer = setTimeout(done, maxMs);
      const stop = this.onChange((busy) => {
        if (!busy) done();
      });
    });
  }

  /** Calls `listener` whenever `busy` changes; returns the unsubscribe. */
  onChange(listener: (busy: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private set(inFlight: number) {
    const wasBusy = this.busy;
    this.inFlight = inFlight;
    if (this.busy !== wasBusy) for (const listener of this.listeners) listener(this.busy);
  }
}
