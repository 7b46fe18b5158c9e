import type { Logger } from '../../logger.js';
import type { FileMaintenanceRepository, StoredFile } from '../../repositories/file-maintenance.repository.js';
import { sha256Of, type StorageDriver } from '../../storage/index.js';

const PAGE = 500;
// Storage questions in flight at once: a HEAD (or stat) each for the hourly check, a whole read each for verify.
const HEAD_CONCURRENCY = 16;
const READ_CONCURRENCY = 4;

/** A file named in a report. */
export interface FileProblem {
  fileId: string;
  filename: string;
  /** the owner's username; null for an anonymous upload */
  account: string | null;
  objectKey: string;
}

/** A file whose stored object differs from its record: sizes (bytes) or SHA-256 digests (hex). */
export interface Mismatch<T> extends FileProblem {
  expected: T;
  actual: T;
}

export interface ObjectCheck {
  /** files whose object was looked at */
  checked: number;
  missing: FileProblem[];
  wrongSize: Mismatch<number>[];
}

export interface VerifyReport {
  /** files whose bytes were read and hashed (missing ones included) */
  checked: number;
  mismatched: Mismatch<string>[];
  missing: FileProblem[];
  /** files stored before digests were kept: nothing to compare with */
  skipped: number;
}

/**
 * Whether storage still holds what the files record: every object present with its recorded size
 * (cheap, by HEAD/stat: the hourly reconciliation), or its bytes re-read and their SHA-256 compared
 * with the digest taken when they were stored (`storage verify`). A file deleted or replaced while it
 * was being looked at is no problem; anything else found is logged, one line per file.
 */
export class IntegrityService {
  constructor(private readonly deps: { files: FileMaintenanceRepository; storage: StorageDriver; logger: Logger }) {}

  async checkObjects(signal?: AbortSignal): Promise<ObjectCheck> {
    const report: ObjectCheck = { checked: 0, missing: [], wrongSize: [] };
    for await (const page of this.allPages()) {
      signal?.throwIfAborted();
      const missing: StoredFile[] = [];
      const wrongSize: [StoredFile, number][] = [];
      await eachAtMost(page, HEAD_CONCURRENCY, async (file) => {
        const object = await this.deps.storage.head(file.objectKey);
        if (!object) missing.push(file);
        else if (object.size !== file.size) wrongSize.push([file, object.size]);
      });
      report.checked += page.length;
      const still = await this.deps.files.stillStored([...missing, ...wrongSize.map(([file]) => file)]);
      for (const file of missing.filter((f) => still.has(f.id))) report.missing.push(this.logged(problemOf(file), 'stored object missing'));
      for (const [file, actual] of wrongSize.filter(([f]) => still.has(f.id))) {
        report.wrongSize.push(this.logged({ ...problemOf(file), expected: file.size, actual }, 'stored object has the wrong size'));
      }
    }
    return report;
  }

  /** Re-reads the objects of every file (or of `sample` files picked at random), streamed, and compares digests. */
  async verify({ sample }: { sample?: number | undefined } = {}): Promise<VerifyReport> {
    const report: VerifyReport = { checked: 0, mismatched: [], missing: [], skipped: 0 };
    const pages = sample === undefined ? this.allPages() : single(this.deps.files.sampleStoredFiles(sample));
    for await (const page of pages) {
      const missing: StoredFile[] = [];
      const mismatched: [StoredFile, string][] = [];
      await eachAtMost(page, READ_CONCURRENCY, async (file) => {
        if (!file.sha256) {
          report.skipped += 1;
          return;
        }
        report.checked += 1;
        const object = await this.deps.storage.get(file.objectKey);
        if (!object) return void missing.push(file);
        const actual = await sha256Of(object.body);
        if (actual !== file.sha256) mismatched.push([file, actual]);
      });
      const still = await this.deps.files.stillStored([...missing, ...mismatched.map(([file]) => file)]);
      for (const file of missing.filter((f) => still.has(f.id))) report.missing.push(this.logged(problemOf(file), 'stored object missing'));
      for (const [file, actual] of mismatched.filter(([f]) => still.has(f.id))) {
        report.mismatched.push(this.logged({ ...problemOf(file), expected: file.sha256!, actual }, 'stored object differs from its recorded SHA-256'));
      }
    }
    return report;
  }

  private async *allPages(): AsyncGenerator<StoredFile[]> {
    for (let page = await this.deps.files.storedFiles(PAGE); page.length > 0; page = await this.deps.files.storedFiles(PAGE, page.at(-1)!.id)) yield page;
  }

  private logged<T extends FileProblem>(problem: T, message: string): T {
    const fields: FileProblem = problem;
    this.deps.logger.warn(fields, message);
    return problem;
  }
}

function problemOf(file: StoredFile): FileProblem {
  return { fileId: file.id, filename: file.filename, account: file.account, objectKey: file.objectKey };
}

async function* single<T>(page: Promise<T>): AsyncGenerator<T> {
  yield await page;
}

/** `run` over `items`, at most `limit` at a time. */
async function eachAtMost<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await run(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
