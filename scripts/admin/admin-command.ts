import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Container } from '../../shared/container.js';

/** How operators run the CLI: `-s` keeps npm's own banner off stdout, which carries only the JSON. */
export const INVOCATION = 'npm run -s admin --';

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** May be given more than once (`--option A --option B`). */
  multiple?: boolean;
  required?: boolean;
  /** The placeholder in usage lines, e.g. `U` in `--username U`. */
  value?: string;
  help: string;
}

type ValueOf<S extends OptionSpec> = S['type'] extends 'boolean'
  ? boolean
  : S['multiple'] extends true
    ? string[]
    : S['required'] extends true
      ? string
      : string | undefined;

export type Values<O extends Record<string, OptionSpec>> = { [K in keyof O]: ValueOf<O[K]> };

export interface AdminCommand<O extends Record<string, OptionSpec> = Record<string, OptionSpec>> {
  /** The words that select it: `['user', 'create']`. */
  name: readonly string[];
  summary: string;
  options: O;
  /**
   * Options that may also be given by position, in this order: the older form `user ban alice`
   * means `user ban --username alice`.
   */
  positionals?: readonly (keyof O & string)[];
  /** The synopsis after the name, where the options alone cannot say it (either of two, say). */
  usage?: string;
  /** Its JSON answer; a `UsageError` for input that the options' types cannot rule out. */
  run(container: Container, values: Values<O>): Promise<unknown>;
}

/** Bad input to a command: printed with that command's usage (before anything is opened, when it can be). */
export class UsageError extends Error {}

/** A command, its `run` checked against its own options; the list of commands holds them all alike. */
export function adminCommand<const O extends Record<string, OptionSpec>>(command: AdminCommand<O>): AdminCommand {
  return command as unknown as AdminCommand;
}

/** `--user` was the name of the option before every command took `--username`; it still works. */
const OLD_USERNAME = 'user';

/**
 * The options of `command` in `args`, or `help` when they ask for it (`-h`, `--help`). Strict: an
 * unknown option, a stray argument or a missing required option is a UsageError.
 */
export function parseCommandArgs(command: AdminCommand, args: string[]): { help: true } | { help: false; values: Values<Record<string, OptionSpec>> } {
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, o] of Object.entries(command.options)) options[name] = { type: o.type, multiple: o.multiple ?? false };
  if ('username' in options) options[OLD_USERNAME] = { type: 'string' };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { help, ...values } = parsed.values as Record<string, unknown>;
  if (help) return { help: true };
  if (values[OLD_USERNAME] !== undefined) {
    if (values.username !== undefined) throw new UsageError('give --username once');
    values.username = values[OLD_USERNAME];
    delete values[OLD_USERNAME];
  }
  const byPosition = command.positionals ?? [];
  if (parsed.positionals.length > byPosition.length) throw new UsageError(`unexpected argument: ${parsed.positionals[byPosition.length]}`);
  parsed.positionals.forEach((value, i) => {
    const name = byPosition[i]!;
    if (values[name] !== undefined) throw new UsageError(`give --${name} once`);
    values[name] = value;
  });
  for (const [name, option] of Object.entries(command.options)) {
    if (option.type === 'boolean') values[name] ??= false;
    else if (option.multiple) values[name] ??= [];
    const missing = option.multiple ? (values[name] as string[]).length === 0 : !values[name];
    if (option.required && missing) throw new UsageError(`${command.name.join(' ')} needs --${name}`);
  }
  return { help: false, values: values as Values<Record<string, OptionSpec>> };
}

/** `user create --username U --password P [--email E]`: the command's synopsis. */
export function synopsis(command: AdminCommand): string {
  if (command.usage) return `${command.name.join(' ')} ${command.usage}`;
  const parts = Object.entries(command.options).map(([name, o]) => {
    const flag = o.type === 'boolean' ? `--${name}` : `--${name} ${o.value ?? 'VALUE'}`;
    const repeated = o.multiple ? `${flag} [${flag.replace(/ .*/, '')} …]` : flag;
    return o.required ? repeated : `[${repeated}]`;
  });
  return [...command.name, ...parts].join(' ');
}

/** The help of one command: its synopsis, what it does and each option. */
export function commandHelp(command: AdminCommand): string {
  const options = Object.entries(command.options).map(([name, o]) => {
    const flag = o.type === 'boolean' ? `--${name}` : `--${name} ${o.value ?? 'VALUE'}`;
    return `  ${flag.padEnd(22)} ${o.help}${o.required ? ' (required)' : ''}`;
  });
  const byPosition = command.positionals?.length
    ? [`${command.positionals.map((p) => `--${p}`).join(' and ')} may also be given by position: ${command.name.join(' ')} ${command.positionals.map((p) => command.options[p]!.value ?? p).join(' ')}`]
    : [];
  return [
    `Usage: ${INVOCATION} ${synopsis(command)}`,
    '',
    command.summary,
    ...(options.length ? ['', 'Options:', ...options] : []),
    '  -h, --help             this help',
    ...(byPosition.length ? ['', ...byPosition] : []),
  ].join('\n');
}
