import { parseArgs } from 'node:util';
import type { Container } from '../../shared/container.js';
import { AppError } from '../../shared/errors.js';
import { isPlanName } from '../../shared/plans.js';

export async function userCommand(container: Container, args: string[]): Promise<unknown> {
  const accounts = container.services.accounts;
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': {
      const { values } = parseArgs({
        args: rest,
        options: { username: { type: 'string' }, password: { type: 'string' }, email: { type: 'string' }, plan: { type: 'string' } },
      });
      if (!values.username || !values.password) throw AppError.badRequest('user create needs --username and --password');
      const plan = values.plan ?? 'free';
      if (!isPlanName(plan)) throw AppError.badRequest('--plan must be free or pro');
      const { account, apiKey } = await accounts.create({
        username: values.username,
        password: values.password,
        email: values.email ?? '',
        plan,
      });
      return { id: account.id, username: account.username, apiKey };
    }
    case 'show': {
      const account = await accounts.getByUsername(required(rest[0], 'user show U'));
      return accounts.profile(account);
    }
    case 'set-plan': {
      const [username, plan] = rest;
      if (!username || !plan || !isPlanName(plan)) throw AppError.badRequest('usage: user set-plan U free|pro');
      return accounts.profile(await accounts.setPlan(username, plan));
    }
    case 'ban': {
      const { values, positionals } = parseArgs({ args: rest, options: { reason: { type: 'string' } }, allowPositionals: true });
      return accounts.profile(await accounts.ban(required(positionals[0], 'user ban U [--reason R]'), values.reason));
    }
    case 'unban':
      return accounts.profile(await accounts.unban(required(rest[0], 'user unban U')));
    default:
      throw AppError.badRequest('usage: user create|show|set-plan|ban|unban');
  }
}

function required(value: string | undefined, usage: string): string {
  if (!value) throw AppError.badRequest(`usage: ${usage}`);
  return value;
}
