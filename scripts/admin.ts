import { DrizzleQueryError } from 'drizzle-orm';
import { loadConfig } from '../shared/config.js';
import { isAppError } from '../shared/errors.js';
import { createLogger } from '../shared/logger.js';
import { exitOnUncaughtErrors } from '../shared/shutdown.js';
import { commandHelp, INVOCATION, parseCommandArgs, synopsis, UsageError, type AdminCommand, type OptionSpec, type Values } from './admin/admin-command.js';
import { moderationCommands } from './admin/moderation.commands.js';
import { notifyCommands } from './admin/notify.commands.js';
import { pollCommands } from './admin/poll.commands.js';
import { storageCommands } from './admin/storage.commands.js';
import { userCommands } from './admin/user.commands.js';

// `npm run -s admin -- <command>`: one JSON object on stdout and exit 0, or an error on stderr and
// exit 1. Help (`--help`, `-h`, `help …`) goes to stdout and exits 0; wrong usage to stderr, exit 1.
const commands: AdminCommand[] = [...userCommands, ...notifyCommands, ...pollCommands, ...moderationCommands, ...storageCommands];
const HELP_FLAGS = ['--help', '-h'];

const argv = process.argv.slice(2);
const helpWanted = argv[0] === 'help' || HELP_FLAGS.includes(argv[0] ?? '');
const words = argv[0] === 'help' ? argv.slice(1) : argv;
const command = commands.find((c) => c.name.every((word, i) => words[i] === word));

if (!command) {
  // `user`, `user --help`, `help user`, `user bogus`: the commands of that group.
  const group = commands.filter((c) => c.name.length > 1 && c.name[0] === words[0]);
  if (group.length > 0) {
    if (helpWanted || HELP_FLAGS.includes(words[1] ?? '')) exitWithHelp(overview(group));
    const problem = words[1] ? `unknown command: ${words[0]} ${words[1]}` : `${words[0]} needs one of: ${group.map((c) => c.name[1]).join(', ')}`;
    failWithUsage(problem, group, `${words[0]} --help`);
  }
  if (helpWanted && (words.length === 0 || HELP_FLAGS.includes(words[0]!))) exitWithHelp(overview(commands));
  failWithUsage(words[0] ? `unknown command: ${words[0]}` : 'no command given', commands, '--help');
}
if (argv[0] === 'help') exitWithHelp(commandHelp(command));

let values: Values<Record<string, OptionSpec>> = {};
try {
  const parsed = parseCommandArgs(command, words.slice(command.name.length));
  if (parsed.help) exitWithHelp(commandHelp(command));
  values = parsed.values;
} catch (err) {
  failWithUsage((err as Error).message, [command], `${command.name.join(' ')} --help`);
}

const config = loadConfig();
// stdout carries the command's JSON only; what goes wrong is logged on stderr (all of it at LOG_LEVEL=debug).
const logger = createLogger(config.logLevel, 'hfs-admin', process.stderr);
exitOnUncaughtErrors(logger, 'admin');
// Loaded only now: help and usage errors answer at once, without the service's whole module graph.
const { createContainer } = await import('../shared/container.js');
const container = await createContainer(config, { connectRedis: false, logger: createLogger('silent') });
let exitCode = 0;
try {
  process.stdout.write(`${JSON.stringify(await command.run(container, values))}\n`);
} catch (err) {
  exitCode = 1;
  if (err instanceof UsageError) process.stderr.write(usageText(err.message, [command], `${command.name.join(' ')} --help`));
  else {
    process.stderr.write(`error: ${describe(err)}\n`);
    logger.debug({ err }, 'admin command failed');
  }
} finally {
  await container.close();
}
process.exit(exitCode);

function overview(listed: AdminCommand[]): string {
  const group = listed.length < commands.length ? `${listed[0]!.name[0]} ` : '';
  return [
    `Usage: ${INVOCATION} ${group}<command> [options]`,
    '',
    'Works on the service the environment configures (the same variables as npm start), also while it',
    'runs. Prints one JSON object on stdout and exits 0, or an error on stderr and exits 1.',
    '',
    'Commands:',
    ...listed.flatMap((c) => [`  ${synopsis(c)}`, `      ${c.summary}`]),
    '',
    'A user is named with --username U everywhere (also by position, as in "user show alice"; --user is',
    `the older spelling). ${INVOCATION} <command> --help describes one command.`,
  ].join('\n');
}

function exitWithHelp(text: string): never {
  process.stdout.write(`${text}\n`);
  process.exit(0);
}

/** `problem`, the synopses of `listed` and the help that says more. */
function usageText(problem: string, listed: AdminCommand[], help: string): string {
  const lines = listed.map((c, i) => `${i === 0 ? 'usage:' : '      '} ${synopsis(c)}`);
  return `error: ${problem}\n${lines.join('\n')}\n(${INVOCATION} ${help} says more)\n`;
}

function failWithUsage(problem: string, listed: AdminCommand[], help: string): never {
  process.stderr.write(usageText(problem, listed, help));
  process.exit(1);
}

/**
 * What the operator reads: a domain error's message; of anything else its kind only. A driver's
 * message names the SQL and its parameters, a password's hash among them.
 */
function describe(err: unknown): string {
  if (isAppError(err)) return err.message;
  const code = (err as { code?: unknown } | undefined)?.code;
  let kind = err instanceof Error ? err.name : 'unknown failure';
  if (err instanceof DrizzleQueryError) {
    const state = (err.cause as { code?: unknown } | undefined)?.code;
    kind = `database query failed${typeof state === 'string' ? ` (SQLSTATE ${state})` : ''}`;
  } else if (typeof code === 'string') kind = code;
  return `${kind} (LOG_LEVEL=debug logs the details)`;
}
