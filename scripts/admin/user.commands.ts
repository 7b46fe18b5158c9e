import { isPlanName, type PlanName } from '../../shared/plans.js';
import { adminCommand, UsageError } from './admin-command.js';

const username = { type: 'string', required: true, value: 'U', help: 'the account’s username' } as const;

function plan(value: string): PlanName {
  if (!isPlanName(value)) throw new UsageError('--plan must be free or pro');
  return value;
}

export const userCommands = [
  adminCommand({
    name: ['user', 'create'],
    summary: 'Creates an account and prints {id, username, apiKey}.',
    options: {
      username,
      password: { type: 'string', required: true, value: 'P', help: 'its password' },
      email: { type: 'string', value: 'E', help: 'its email address' },
      plan: { type: 'string', value: 'free|pro', help: 'its plan (default free)' },
    },
    async run({ services }, values) {
      const { account, apiKey } = await services.accounts.create({
        username: values.username,
        password: values.password,
        email: values.email ?? '',
        plan: plan(values.plan ?? 'free'),
      });
      return { id: account.id, username: account.username, apiKey };
    },
  }),
  adminCommand({
    name: ['user', 'show'],
    summary: 'Prints the account’s profile (the body of GET /api/auth/me, API key included).',
    options: { username },
    positionals: ['username'],
    run: async ({ services }, values) => services.accounts.profile(await services.accounts.getByUsername(values.username)),
  }),
  adminCommand({
    name: ['user', 'set-plan'],
    summary: 'Moves the account to another plan and prints its profile.',
    options: { username, plan: { type: 'string', required: true, value: 'free|pro', help: 'the new plan' } },
    positionals: ['username', 'plan'],
    run: async ({ services }, values) => services.accounts.profile(await services.accounts.setPlan(values.username, plan(values.plan))),
  }),
  adminCommand({
    name: ['user', 'ban'],
    summary: 'Bans the account and prints its profile.',
    options: { username, reason: { type: 'string', value: 'R', help: 'why, shown to the account' } },
    positionals: ['username'],
    run: async ({ services }, values) => services.accounts.profile(await services.accounts.ban(values.username, values.reason)),
  }),
  adminCommand({
    name: ['user', 'unban'],
    summary: 'Lifts a ban and prints the account’s profile.',
    options: { username },
    positionals: ['username'],
    run: async ({ services }, values) => services.accounts.profile(await services.accounts.unban(values.username)),
  }),
];
