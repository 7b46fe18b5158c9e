import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';

/** The database's answer to "are you there", for readiness probes. */
export class HealthRepository {
  constructor(private readonly db: Database) {}

  async ping(): Promise<void> {
    await this.db.execute(sql`select 1`);
  }
}
