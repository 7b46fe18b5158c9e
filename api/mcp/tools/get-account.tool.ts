import { z } from 'zod';
import { accountOverviewSchema } from '../../../shared/contracts/account.contract.js';
import { READ, tool } from './tool.js';

export const getAccountTool = tool({
  name: 'get_account',
  title: 'Account',
  description: 'The account: username, plan, limits, usage and what is left today.',
  scope: 'account:read',
  input: z.object({}),
  output: accountOverviewSchema,
  annotations: READ,
  run: async ({ caller, services }) => ({ data: await services.accounts.overview(caller.account) }),
});
