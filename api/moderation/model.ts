import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Batcher, oneByOne, type Outcome } from '../../shared/batcher.js';
import type { Categories } from './verdict.js';

export const MODEL_NAME = 'nsfwjs MobileNetV2';
export const INPUT_SIZE = 224;
/** One frame as the model takes it: INPUT_SIZE × INPUT_SIZE RGB, a byte a channel. */
export const FRAME_BYTES = INPUT_SIZE * INPUT_SIZE * 3;

export interface ModelOptions {
  /** model instances, each in a worker thread of its own (inference takes a core while it runs) */
  threads: number;
  /** frames one model call takes at most; 1 = one at a time */
  batchSize: number;
}

/** What the main thread asks a model thread (model-thread.ts), and what it answers. */
export type ThreadRequest = { id: number; kind: 'classify'; pixels: Uint8Array; count: number } | { id: number; kind: 'tensors' };
export type ThreadReply = { ready: true; device: string } | { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

// Run from the TypeScript sources (tests, benchmarks), the thread registers tsx itself: on Node 20 a
// worker's entry does not go through its parent's --import hooks.
const THREAD_ENTRY = new URL(`./model-thread${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url);
const spawnThread = () =>
  THREAD_ENTRY.pathname.endsWith('.ts')
    ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(THREAD_ENTRY.href)}); });`, { eval: true })
    : new Worker(THREAD_ENTRY);

/** One model instance in a worker thread: calls go in by message and are answered by id. */
class ModelThread {
  private readonly calls = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  private nextId = 0;
  exited = false;

  private constructor(
    private readonly worker: Worker,
    readonly device: string,
  ) {
    worker.on('message', (reply: ThreadReply) => {
      if ('ready' in reply) return;
      const call = this.calls.get(reply.id);
      this.calls.delete(reply.id);
      if (reply.ok) call?.resolve(reply.value);
      else call?.reject(new Error(reply.error));
    });
    // A thread that dies fails what it holds; the model starts another for the next batch.
    const failAll = (err: Error) => {
      this.exited = true;
      for (const call of this.calls.values()) call.reject(err);
      this.calls.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`The model thread exited (${code})`)));
  }

  static start(): Promise<ModelThread> {
    const worker = spawnThread();
    return new Promise((resolve, reject) => {
      const failed = (err: unknown) => reject(err instanceof Error ? err : new Error(`The model thread exited (${String(err)}) while loading`));
      worker.once('error', failed);
      worker.once('exit', failed);
      worker.once('message', (reply: ThreadReply) => {
        worker.off('error', failed);
        worker.off('exit', failed);
        resolve(new ModelThread(worker, 'device' in reply ? reply.device : 'unknown'));
      });
    });
  }

  /** Frames laid end to end go over as one transferred buffer: one model call for all of them. */
  classify(frames: Uint8Array[]): Promise<Categories[]> {
    const pixels = new Uint8Array(frames.length * FRAME_BYTES);
    frames.forEach((frame, i) => pixels.set(frame, i * FRAME_BYTES));
    return this.call({ id: this.nextId++, kind: 'classify', pixels, count: frames.length }, [pixels.buffer]) as Promise<Categories[]>;
  }

  tensorCount(): Promise<number> {
    return this.call({ id: this.nextId++, kind: 'tensors' }) as Promise<number>;
  }

  private call(request: ThreadRequest, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (this.exited) return Promise.reject(new Error('The model thread has exited'));
    return new Promise((resolve, reject) => {
      this.calls.set(request.id, { resolve, reject });
      this.worker.postMessage(request, transfer);
    });
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }
}

/**
 * nsfwjs MobileNetV2 on TensorFlow.js (WebAssembly backend), one instance per worker thread. Frames
 * are batched per thread (shared/batcher.ts): a frame goes to the thread with the fewest in hand, so
 * an idle thread runs it at once; what arrives while every thread is busy is collected and the next
 * call of a thread takes up to `batchSize` of it.
 */
export class NsfwModel {
  private threads: ModelThread[] = [];
  /** frames handed to each thread and not yet answered */
  private readonly inHand: number[];
  private readonly batcher: Batcher<Uint8Array, Categories>;
  /** Model calls made and the frames they scored: frames / calls is the mean batch. */
  readonly usage = { calls: 0, frames: 0 };

  constructor(private readonly options: ModelOptions) {
    this.inHand = Array.from({ length: options.threads }, () => 0);
    this.batcher = new Batcher((key, frames) => this.run(Number(key), frames), options.batchSize);
  }

  get device(): string {
    return `${this.threads[0]?.device ?? 'cpu (tfjs wasm)'}, ${this.options.threads} thread(s), batches of up to ${this.options.batchSize}`;
  }

  async load(): Promise<void> {
    if (this.threads.length > 0) return;
    this.threads = await Promise.all(this.inHand.map(() => ModelThread.start()));
  }

  /** Classifies one 224×224 RGB frame into the four categories (probabilities summing to 1). */
  async classify(rgb: Uint8Array): Promise<Categories> {
    const index = this.inHand.indexOf(Math.min(...this.inHand));
    this.inHand[index]! += 1;
    try {
      return await this.batcher.submit(String(index), rgb);
    } finally {
      this.inHand[index]! -= 1;
    }
  }

  private async run(index: number, frames: Uint8Array[]): Promise<Outcome<Categories>[]> {
    const thread = await this.thread(index);
    const valid = frames.filter((frame) => frame.length === FRAME_BYTES);
    let scored: Outcome<Categories>[] = [];
    if (valid.length > 0) {
      this.usage.calls += 1;
      this.usage.frames += valid.length;
      try {
        scored = (await thread.classify(valid)).map((value) => ({ ok: true, value }));
      } catch (error) {
        // A batch that fails is tried frame by frame: one bad frame must not fail the others.
        scored = valid.length === 1 ? [{ ok: false, error }] : await oneByOne(valid, async (frame) => (await thread.classify([frame]))[0]!);
      }
    }
    let next = 0;
    return frames.map((frame) =>
      frame.length === FRAME_BYTES ? scored[next++]! : { ok: false, error: new Error(`A frame is ${FRAME_BYTES} bytes (${INPUT_SIZE}×${INPUT_SIZE} RGB), not ${frame.length}`) },
    );
  }

  private async thread(index: number): Promise<ModelThread> {
    const thread = this.threads[index];
    if (!thread) throw new Error('The model is not loaded');
    if (!thread.exited) return thread;
    const replacement = await ModelThread.start();
    this.threads[index] = replacement;
    return replacement;
  }

  /** Tensors alive in all threads right now (the models' weights and nothing else, between requests). */
  async tensorCount(): Promise<number> {
    const counts = await Promise.all(this.threads.map((thread) => thread.tensorCount()));
    return counts.reduce((a, b) => a + b, 0);
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.terminate()));
    this.threads = [];
  }
}
