import { and, eq, gt, lt } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { tusResults } from '../db/schema.js';

/** Finished resumable uploads' answers, reached only with their owner tag. */
export class TusResultRepository {
  constructor(private readonly db: Database) {}

  async insert(owner: string, uploadId: string, resultSealed: string): Promise<void> {
    await this.db.insert(tusResults).values({ uploadId, owner, resultSealed }).onConflictDoNothing();
  }

  async findOwned(owner: string, uploadId: string, since: Date): Promise<string | undefined> {
    const [row] = await this.db
      .select({ resultSealed: tusResults.resultSealed })
      .from(tusResults)
      .where(and(eq(tusResults.uploadId, uploadId), eq(tusResults.owner, owner), gt(tusResults.createdAt, since)));
    return row?.resultSealed;
  }

  async deleteOlderThan(before: Date): Promise<number> {
    const deleted = await this.db.delete(tusResults).where(lt(tusResults.createdAt, before)).returning({ uploadId: tusResults.uploadId });
    return deleted.length;
  }
}
