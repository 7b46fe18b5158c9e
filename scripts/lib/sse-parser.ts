export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** Incremental parser of a text/event-stream: feed chunks, get whole events and comment lines. */
export class SseParser {
  private buffer = '';

  feed(chunk: string): { events: SseEvent[]; comments: string[] } {
    this.buffer += chunk;
    const events: SseEvent[] = [];
    const comments: string[] = [];
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const event: SseEvent = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) comments.push(line.slice(1).trim());
        const match = /^(id|event|data): ?(.*)$/.exec(line);
        if (match) event[match[1] as keyof SseEvent] = match[2];
      }
      if (event.event || event.data) events.push(event);
    }
    return { events, comments };
  }
}
