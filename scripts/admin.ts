import { DrizzleQueryError } from 'drizzle-orm';
import { loadConfig } from '../shared/config.js';
import { createContainer, type Container } from '../shared/container.js';
import { isAppError } from '../shared/errors.js';
import { createLogger } from '../shared/logger.js';
import { exitOnUncaughtErrors } from '../shared/shutdown.js';
import { moderationCommand } from './admin/moderation.commands.js';
import { notifyCommand } from './admin/notify.commands.js';
import { pollCommand } from './admin/poll.commands.js';
import { storageCommand } from './admin/storage.commands.js';
import { userCommand } from './admin/user.commands.js';

// `npm run admin -- <command>`: one JSON object on stdout and exit 0, or an error on stderr and exit 1.
const commands: Record<string, (c: Container, args: string[]) => Promise<unknown>> = {
  user: userCommand,
  notify: notifyCommand,
  poll: pollCommand,
  moderation: moderationCommand,
  storage: storageCommand,
};

const [name, ...args] = process.argv.slice(2);
const command = name ? commands[name] : undefined;
if (!command) {
  process.stderr.write(`usage: admin <${Object.keys(commands).join('|')}> ...\n`);
  process.exit(1);
}

const config = loadConfig();
// stdout carries the command's JSON only; what goes wrong is logged on stderr (all of it at LOG_LEVEL=debug).
const logger = createLogger(config.logLevel, 'hfs-admin', process.stderr);
exitOnUncaughtErrors(logger, 'admin');
const container = await createContainer(config, { connectRedis: false, logger: createLogger('silent') });
let exitCode = 0;
try {
  process.stdout.write(`${JSON.stringify(await command(container, args))}\n`);
} catch (err) {
  process.stderr.write(`error: ${describe(err)}\n`);
  logger.debug({ err }, 'admin command failed');
  exitCode = 1;
} finally {
  await container.close();
}
process.exit(exitCode);

/**
 * What the operator reads: a domain error's or a usage error's message; of anything else its kind
 * only. A driver's message names the SQL and its parameters, a password's hash among them.
 */
function describe(err: unknown): string {
  if (isAppError(err)) return err.message;
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) return (err as Error).message;
  let kind = err instanceof Error ? err.name : 'unknown failure';
  if (err instanceof DrizzleQueryError) {
    const state = (err.cause as { code?: unknown } | undefined)?.code;
    kind = `database query failed${typeof state === 'string' ? ` (SQLSTATE ${state})` : ''}`;
  } else if (typeof code === 'string') kind = code;
  return `${kind} (LOG_LEVEL=debug logs the details)`;
}
