import WebSocket from 'ws';

interface Reply {
  id?: number;
  method?: string;
  params?: { sessionId?: string; message?: string };
  error?: { message: string };
}

/**
 * A soak process's V8 inspector (the process started with `--inspect=127.0.0.1:<port>`), used for one
 * thing: a full, memory-reducing collection on demand (DevTools' "Collect garbage"), in the main
 * thread and in every worker thread (the moderation model runs in one). Memory measured right after
 * it is what the process retains; between collections it also holds garbage V8 has not yet looked at.
 */
export class Inspector {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  private readonly workers = new Set<string>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => this.receive(JSON.parse(data.toString()) as Reply));
    socket.on('close', () => {
      for (const { reject } of this.pending.values()) reject(new Error('the inspector closed'));
      this.pending.clear();
    });
  }

  /** Attaches to the inspector listening on `port`, and to each worker thread as it starts. */
  static async attach(port: number): Promise<Inspector> {
    const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
    if (!target) throw new Error(`no inspector target on port ${port}`);
    const socket = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise<void>((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const inspector = new Inspector(socket);
    await inspector.send('NodeWorker.enable', { waitForDebuggerOnStart: false });
    return inspector;
  }

  /** A full collection in the main thread, then in each worker thread, one after another. */
  async collectGarbage(): Promise<void> {
    await this.send('HeapProfiler.collectGarbage');
    for (const sessionId of this.workers) await this.send('HeapProfiler.collectGarbage', {}, sessionId);
  }

  close(): void {
    this.socket.close();
  }

  /** A command to the main thread, or through `NodeWorker.sendMessageToWorker` to a worker thread's session. */
  private send(method: string, params: object = {}, sessionId?: string): Promise<void> {
    const id = this.nextId++;
    const reply = new Promise<void>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    const message = JSON.stringify({ id, method, params });
    if (sessionId === undefined) this.socket.send(message);
    else this.socket.send(JSON.stringify({ id: this.nextId++, method: 'NodeWorker.sendMessageToWorker', params: { sessionId, message } }));
    return reply;
  }

  private receive(reply: Reply): void {
    if (reply.method === 'NodeWorker.attachedToWorker') this.workers.add(reply.params!.sessionId!);
    else if (reply.method === 'NodeWorker.detachedFromWorker') this.workers.delete(reply.params!.sessionId!);
    // A worker thread's answer comes wrapped in an event of the main session.
    else if (reply.method === 'NodeWorker.receivedMessageFromWorker') return this.receive(JSON.parse(reply.params!.message!) as Reply);
    if (reply.id === undefined) return;
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (reply.error) waiting.reject(new Error(reply.error.message));
    else waiting.resolve();
  }
}
