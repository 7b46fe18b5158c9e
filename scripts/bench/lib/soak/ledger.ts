/** An account the soak drives, with what it set up: folders and a webhook endpoint. */
export interface SoakAccount {
  id: string;
  username: string;
  password: string;
  apiKey: string;
  folderIds: string[];
  webhookPath: string;
  webhookSecret: string;
}

/** An accepted upload as its answer described it. */
export interface TrackedFile {
  account: SoakAccount;
  filename: string;
  /** the stored bytes' SHA-256, from the answer (metadata removal may have changed what was sent) */
  sha256: string;
  size: number;
  /** a decodable image: renditions are asked of it */
  image: boolean;
  deletionUrl: string;
  /** served over and over, never changed */
  hot: boolean;
  /** a request that may change or remove it is under way */
  busy: boolean;
  /** when a shortened expiry is due (ms since the epoch) */
  dueAt?: number;
  etag?: string;
}

/** A share link the soak made, and the whole bodies it got from it. */
export interface TrackedLink {
  id: string;
  account: SoakAccount;
  views: number;
  revoked: boolean;
}

/** Files that are present now, picked at random in O(1). */
export class FilePool {
  private readonly files: TrackedFile[] = [];
  private readonly index = new Map<TrackedFile, number>();

  get size(): number {
    return this.files.length;
  }

  all(): readonly TrackedFile[] {
    return this.files;
  }

  add(file: TrackedFile): void {
    this.index.set(file, this.files.length);
    this.files.push(file);
  }

  remove(file: TrackedFile): void {
    const at = this.index.get(file);
    if (at === undefined) return;
    const last = this.files.pop()!;
    if (last !== file) {
      this.files[at] = last;
      this.index.set(last, at);
    }
    this.index.delete(file);
  }

  /** A random file that `fits`, or undefined after a few misses. */
  pick(fits: (file: TrackedFile) => boolean): TrackedFile | undefined {
    for (let tries = 0; tries < 40 && this.files.length > 0; tries++) {
      const file = this.files[Math.floor(Math.random() * this.files.length)]!;
      if (fits(file)) return file;
    }
    return undefined;
  }
}

/** What the traffic did that the end checks compare with the database, storage and receivers. */
export class Ledger {
  readonly present = new FilePool();
  /** uploads whose expiry was brought forward: out of the pool, 404 from `dueAt` */
  readonly expiring: TrackedFile[] = [];
  /** names that were deleted (or renamed away) and must answer 404 */
  readonly gone: { account: SoakAccount; filename: string }[] = [];
  readonly uploads = new Map<string, number>();
  /** accepted uploads stored with other bytes than were sent (metadata removed) */
  stripped = 0;
  readonly deletes = new Map<string, number>();
  readonly links: TrackedLink[] = [];
  /** votes answered 200, by option id */
  readonly votes = new Map<string, number>();
  readonly polls: { id: string; options: { id: string; text: string }[]; voters: Set<string> }[] = [];

  count(map: Map<string, number>, key: string): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }
}
