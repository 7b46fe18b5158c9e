export const UPLOADER_TOOLS = [
  { tool: 'sharex', label: 'ShareX (.sxcu)' },
  { tool: 'flameshot', label: 'Flameshot script' },
  { tool: 'curl', label: 'curl command' },
] as const;

/**
 * Downloads of ready-to-use uploader configs (`/api/user/uploader-config`), with the primary key or
 * the folder key `folderKeyId` filled in. Plain links: the session cookie goes with them.
 */
export function UploaderConfigLinks({ folderKeyId, folderName }: { folderKeyId?: string; folderName?: string }) {
  const key = folderKeyId ? `&key=${encodeURIComponent(folderKeyId)}` : '';
  return (
    <ul class="config-links">
      {UPLOADER_TOOLS.map(({ tool, label }) => (
        <li key={tool}>
          <a href={`/api/user/uploader-config?tool=${tool}${key}`} download>
            {label}
            {folderName && <span class="sr-only"> for {folderName}</span>}
          </a>
        </li>
      ))}
    </ul>
  );
}
