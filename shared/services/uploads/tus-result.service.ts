import type { UploadResult } from '../../contracts/upload.contract.js';
import type { SecretBox } from '../../crypto.js';
import type { TusResultRepository } from '../../repositories/tus-result.repository.js';

// How long a finished upload answers HEAD and GET …/result: long enough for a client to come back.
const KEEP_MS = 24 * 60 * 60_000;

/**
 * What a finished resumable upload answered, for its owner to ask again (HEAD, GET …/result) after
 * the upload's own copy is gone: in PostgreSQL, so an emptied Redis loses none of it.
 */
export class TusResultService {
  constructor(
    private readonly results: TusResultRepository,
    private readonly box: SecretBox,
  ) {}

  async save(owner: string, uploadId: string, result: UploadResult): Promise<void> {
    await this.results.insert(owner, uploadId, this.box.encrypt(JSON.stringify(result)));
  }

  async find(owner: string, uploadId: string): Promise<UploadResult | undefined> {
    const sealed = await this.results.findOwned(owner, uploadId, new Date(Date.now() - KEEP_MS));
    return sealed === undefined ? undefined : (JSON.parse(this.box.decrypt(sealed)) as UploadResult);
  }

  /** Forgets the answers older than a day; the hourly `uploads.expire` job calls it. */
  prune(): Promise<number> {
    return this.results.deleteOlderThan(new Date(Date.now() - KEEP_MS));
  }
}
