/**
 * What a delegated credential may do: the spec's MCP scopes, which personal access tokens carry too,
 * each with the words the consent page and the dashboard show for it.
 */
export const SCOPES = {
  'account:read': 'See your username, plan, limits and usage',
  'files:read': 'List your files and look at them',
  'files:write': 'Upload, rename and move your files',
  'files:delete': 'Delete your files',
  'folders:read': 'List your folders',
  'folders:write': 'Create, delete and share your folders',
} as const;

export type Scope = keyof typeof SCOPES;

export const SCOPE_NAMES = Object.keys(SCOPES) as [Scope, ...Scope[]];

/** The scopes named in a space-separated scope string, in the spec's order, each once. */
export function scopesIn(scope: string | undefined): Scope[] {
  const named = new Set((scope ?? '').split(' '));
  return SCOPE_NAMES.filter((name) => named.has(name));
}
