import { expect } from 'chai';
import type { TestEnv } from './test-env.js';

/** Creates a folder through the API and returns its id. */
export async function createFolder(env: TestEnv, account: { apiKey: string }, name: string): Promise<string> {
  const res = await env.api.post('/api/user/folders', { key: account.apiKey, json: { name } });
  expect(res.status).to.equal(200);
  return res.body.data.id;
}
