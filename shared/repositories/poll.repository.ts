import { and, asc, desc, eq, inArray, lte, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { pollOptions, polls, pollVotes } from '../db/schema.js';
import { done, refused, type Outcome } from './outcome.js';
import { outcomeOf } from './pg-errors.js';

export type PollRow = typeof polls.$inferSelect;
export type OptionRow = typeof pollOptions.$inferSelect;
export interface PollWithOptions {
  poll: PollRow;
  options: OptionRow[];
  userVote: string | null;
}

/** Polls and their votes. An account sees polls for everyone and polls aimed at it. */
export class PollRepository {
  constructor(private readonly db: Database) {}

  async create(input: { question: string; description: string; options: string[]; targetAccountId: string | null; closesAt: Date | null }) {
    return this.db.transaction(async (tx) => {
      const [poll] = await tx
        .insert(polls)
        .values({
          question: input.question,
          description: input.description,
          targetType: input.targetAccountId ? 'user' : 'all',
          targetAccountId: input.targetAccountId,
          closesAt: input.closesAt,
        })
        .returning();
      const options = await tx
        .insert(pollOptions)
        .values(input.options.map((text, position) => ({ pollId: poll!.id, text, position })))
        .returning();
      return { poll: poll!, options };
    });
  }

  /** Active polls first, newest first within each status. */
  async visibleTo(accountId: string): Promise<PollWithOptions[]> {
    const rows = await this.db
      .select()
      .from(polls)
      .where(or(eq(polls.targetType, 'all'), eq(polls.targetAccountId, accountId)))
      .orderBy(sql`${polls.status} = 'active' desc`, desc(polls.createdAt));
    return this.withOptions(rows, accountId);
  }

  async findVisible(accountId: string, pollId: string): Promise<PollWithOptions | undefined> {
    const rows = await this.db
      .select()
      .from(polls)
      .where(and(eq(polls.id, pollId), or(eq(polls.targetType, 'all'), eq(polls.targetAccountId, accountId))));
    return (await this.withOptions(rows, accountId))[0];
  }

  /**
   * Records the account's vote, unless the poll is `closed` (or past its time). The primary key
   * (poll, account) lets only one vote per account in, however many arrive at once
   * (`already_voted`); the counts rise in the same transaction.
   */
  async vote(accountId: string, pollId: string, optionId: string): Promise<Outcome<void, 'closed' | 'already_voted'>> {
    return outcomeOf(
      () =>
        this.db.transaction(async (tx) => {
          const [poll] = await tx.select().from(polls).where(eq(polls.id, pollId)).for('update');
          const due = poll?.closesAt && poll.closesAt <= new Date();
          if (poll?.status !== 'active' || due) return refused('closed');
          await tx.insert(pollVotes).values({ pollId, accountId, optionId });
          await tx.update(pollOptions).set({ voteCount: sql`${pollOptions.voteCount} + 1` }).where(eq(pollOptions.id, optionId));
          await tx.update(polls).set({ totalVotes: sql`${polls.totalVotes} + 1` }).where(eq(polls.id, pollId));
          return done(undefined);
        }),
      { unique: 'already_voted' },
    );
  }

  async close(pollId: string): Promise<PollRow | undefined> {
    const [row] = await this.db
      .update(polls)
      .set({ status: 'closed', closedAt: new Date() })
      .where(and(eq(polls.id, pollId), eq(polls.status, 'active')))
      .returning();
    return row;
  }

  /** Closes active polls whose closesAt has passed, as of that time; returns how many. */
  async closeDue(now = new Date()): Promise<number> {
    const rows = await this.db
      .update(polls)
      .set({ status: 'closed', closedAt: sql`${polls.closesAt}` })
      .where(and(eq(polls.status, 'active'), lte(polls.closesAt, now)))
      .returning({ id: polls.id });
    return rows.length;
  }

  async find(pollId: string): Promise<PollRow | undefined> {
    const [row] = await this.db.select().from(polls).where(eq(polls.id, pollId));
    return row;
  }

  private async withOptions(rows: PollRow[], accountId: string): Promise<PollWithOptions[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((p) => p.id);
    const [options, votes] = await Promise.all([
      this.db.select().from(pollOptions).where(inArray(pollOptions.pollId, ids)).orderBy(asc(pollOptions.position)),
      this.db
        .select({ pollId: pollVotes.pollId, optionId: pollVotes.optionId })
        .from(pollVotes)
        .where(and(inArray(pollVotes.pollId, ids), eq(pollVotes.accountId, accountId))),
    ]);
    return rows.map((poll) => ({
      poll,
      options: options.filter((o) => o.pollId === poll.id),
      userVote: votes.find((v) => v.pollId === poll.id)?.optionId ?? null,
    }));
  }
}

