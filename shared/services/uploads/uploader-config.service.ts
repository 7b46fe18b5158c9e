import { z } from 'zod';
import { AppError } from '../../errors.js';
import type { Principal } from '../../principal.js';
import type { AccessTokenService } from '../accounts/access-token.service.js';
import type { AccountService } from '../accounts/account.service.js';
import type { FolderKeyService } from '../folders/folder-key.service.js';

export const uploaderConfigSchema = z.object({
  tool: z.enum(['sharex', 'flameshot', 'curl'], { error: 'tool must be sharex, flameshot or curl' }),
  key: z.string({ error: 'key must be primary or a folder key id' }).min(1, 'key must be primary or a folder key id').default('primary'),
});
export type UploaderConfigRequest = z.output<typeof uploaderConfigSchema>;
export const tokenConfigSchema = uploaderConfigSchema.pick({ tool: true });
type Tool = UploaderConfigRequest['tool'];
const TOOL_NAMES: Record<Tool, string> = { sharex: 'ShareX', flameshot: 'Flameshot', curl: 'curl' };

export interface UploaderConfigFile {
  filename: string;
  contentType: string;
  body: string;
}

/** The key a config carries, and what names the config: the account, plus the folder of a folder key. */
interface ConfigKey {
  apiKey: string;
  username: string;
  folderName?: string;
}

/** Ready-to-use configs for desktop upload tools (ShareX, Flameshot, curl) with one of the account's keys filled in. */
export class UploaderConfigService {
  constructor(
    private readonly accounts: AccountService,
    private readonly folderKeys: FolderKeyService,
    private readonly tokens: AccessTokenService,
    private readonly baseUrl: string,
  ) {}

  async build(account: Principal, request: UploaderConfigRequest): Promise<UploaderConfigFile> {
    return this.configFor(request.tool, await this.keyOf(account, request.key));
  }

  /** A config carrying a new personal access token that may only upload (files:write), named after the tool. */
  async buildWithNewToken(account: Principal, tool: Tool): Promise<UploaderConfigFile> {
    const { token } = await this.tokens.create(account, { name: `${TOOL_NAMES[tool]} uploads`, scopes: ['files:write'] });
    return this.configFor(tool, { apiKey: token, username: account.username });
  }

  private configFor(tool: Tool, key: ConfigKey): UploaderConfigFile {
    const slug = ['hosted-files', key.username, key.folderName && slugOf(key.folderName)].filter(Boolean).join('-');
    switch (tool) {
      case 'sharex':
        return { filename: `${slug}.sxcu`, contentType: 'application/json; charset=utf-8', body: this.sharex(key) };
      case 'flameshot':
        return { filename: `${slug}-flameshot.sh`, contentType: 'text/x-shellscript; charset=utf-8', body: this.flameshot(key) };
      case 'curl':
        return { filename: `${slug}-curl.txt`, contentType: 'text/plain; charset=utf-8', body: this.curl(key) };
    }
  }

  private async keyOf(account: Principal, key: string): Promise<ConfigKey> {
    if (key === 'primary') return { apiKey: await this.accounts.apiKeyOf(account), username: account.username };
    // Listing (not a lookup by id) keeps it owner-scoped and Pro-only, exactly as the folder-key routes are.
    const folderKey = (await this.folderKeys.list(account)).find((k) => k.id === key);
    if (!folderKey) throw AppError.notFound('Folder key not found');
    return { apiKey: folderKey.apiKey, username: account.username, folderName: folderKey.folderName };
  }

  private uploadUrl(json: boolean): string {
    return `${this.baseUrl}/api/upload${json ? '?format=json' : ''}`;
  }

  /** ShareX's current custom uploader format (`{json:…}` syntax); double-clicking it sets image and file uploads. */
  private sharex(key: ConfigKey): string {
    const config = {
      Version: '17.0.0',
      Name: `Hosted Files (${key.folderName ? `${key.username} / ${key.folderName}` : key.username})`,
      DestinationType: 'ImageUploader, FileUploader',
      RequestMethod: 'POST',
      RequestURL: this.uploadUrl(true),
      Headers: { 'x-api-key': key.apiKey },
      Body: 'MultipartFormData',
      FileFormName: 'file',
      URL: '{json:data.url}',
      DeletionURL: '{json:data.deletionUrl}',
      ErrorMessage: '{json:error}',
    };
    return `${JSON.stringify(config, null, 2)}\n`;
  }

  private curl(key: ConfigKey): string {
    return `curl -H "x-api-key: ${key.apiKey}" -F file=@FILE ${shellQuote(this.uploadUrl(false))}\n`;
  }

  /** A POSIX sh script for a Flameshot hotkey: capture, upload, URL to the clipboard; failures exit 1 with the server's message. */
  private flameshot(key: ConfigKey): string {
    return `#!/bin/sh
# Hosted Files: takes a screenshot with Flameshot, uploads it and copies its URL to the clipboard.
# Needs flameshot and curl, and wl-copy (Wayland) or xclip or xsel (X11) for the clipboard.
API_KEY=${shellQuote(key.apiKey)}
UPLOAD_URL=${shellQuote(this.uploadUrl(true))}

# The string value of the field named $1 in the one-line JSON answer on stdin (no jq needed).
json_string() {
  sed -n 's/.*"'"$1"'"[[:space:]]*:[[:space:]]*"\\([^"\\\\]*\\(\\\\.[^"\\\\]*\\)*\\)".*/\\1/p' | sed 's/\\\\\\(.\\)/\\1/g'
}

# A file rather than a pipe, so a cancelled capture (no bytes) uploads nothing.
shot=$(mktemp) || exit 1
trap 'rm -f "$shot"' EXIT
flameshot gui --raw > "$shot"
if [ ! -s "$shot" ]; then
  echo "No screenshot taken" >&2
  exit 1
fi

answer=$(curl -sS -H "x-api-key: $API_KEY" -F 'file=@-;filename=screenshot.png' "$UPLOAD_URL" < "$shot") || exit 1
url=$(printf '%s\\n' "$answer" | json_string url)
if [ -z "$url" ]; then
  error=$(printf '%s\\n' "$answer" | json_string error)
  echo "Upload failed: \${error:-$answer}" >&2
  exit 1
fi

printf '%s\\n' "$url"
# Output to /dev/null: clipboard tools stay in the background to serve the selection.
copy() {
  printf '%s' "$url" | "$@" > /dev/null 2>&1 || echo "Could not copy the URL with $1" >&2
}
if [ -n "\${WAYLAND_DISPLAY:-}" ] && command -v wl-copy > /dev/null 2>&1; then
  copy wl-copy
elif command -v xclip > /dev/null 2>&1; then
  copy xclip -selection clipboard
elif command -v xsel > /dev/null 2>&1; then
  copy xsel --clipboard --input
else
  echo "No clipboard tool found (wl-copy, xclip or xsel); the URL is printed above" >&2
fi
`;
  }
}

/** A word for sh in single quotes, whatever it holds. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A folder name as a file-name part: lower-case letters and digits joined by hyphens. */
function slugOf(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}
