import { z } from 'zod';
import { count, isoDate, uuid } from './common.contract.js';

const pollOptionSchema = z.object({ id: uuid, text: z.string(), voteCount: count });
/** A poll's results as a voter sees them (also the answer to a vote). */
export const pollResultsSchema = z.object({
  id: uuid,
  question: z.string(),
  status: z.enum(['active', 'closed']),
  totalVotes: count,
  userVote: uuid.nullable().meta({ description: 'The option this account voted for' }),
  options: z.array(pollOptionSchema),
});
export const pollSchema = pollResultsSchema
  .extend({
    description: z.string(),
    targetType: z.enum(['all', 'user']),
    targetUserId: uuid.nullable(),
    targetUsername: z.string().nullable(),
    createdAt: isoDate,
    closedAt: isoDate.nullable(),
  })
  .meta({ id: 'Poll' });
export type Poll = z.output<typeof pollSchema>;
export type PollResults = z.output<typeof pollResultsSchema>;
