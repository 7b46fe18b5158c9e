import { loadConfig } from '../shared/config.js';
import { createContainer, type Container } from '../shared/container.js';
import { createLogger } from '../shared/logger.js';
import { moderationCommand } from './admin/moderation.commands.js';
import { notifyCommand } from './admin/notify.commands.js';
import { pollCommand } from './admin/poll.commands.js';
import { userCommand } from './admin/user.commands.js';

// `npm run admin -- <command>`: one JSON object on stdout and exit 0, or an error on stderr and exit 1.
const commands: Record<string, (c: Container, args: string[]) => Promise<unknown>> = {
  user: userCommand,
  notify: notifyCommand,
  poll: pollCommand,
  moderation: moderationCommand,
};

const [name, ...args] = process.argv.slice(2);
const command = name ? commands[name] : undefined;
if (!command) {
  process.stderr.write(`usage: admin <${Object.keys(commands).join('|')}> ...\n`);
  process.exit(1);
}

const container = await createContainer(loadConfig(), { connectRedis: false, logger: createLogger('silent') });
let exitCode = 0;
try {
  process.stdout.write(`${JSON.stringify(await command(container, args))}\n`);
} catch (err) {
  process.stderr.write(`error: ${(err as Error).message}\n`);
  exitCode = 1;
} finally {
  await container.close();
}
process.exit(exitCode);
