// How sizes, counts, dates and links read on screen.

export { formatBytes } from '../../views/format-bytes.js';

/** "1 file", "3 files": the count with its word. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The day alone, where space is short (a tile): "Nov 27, 2026". */
export function formatDay(iso: string): string {
  return new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

type LinkFormat = 'url' | 'markdown' | 'html' | 'bbcode';

export const LINK_FORMATS: { value: LinkFormat; label: string }[] = [
  { value: 'url', label: 'Link' },
  { value: 'markdown', label: 'Markdown' },
  { value: 'html', label: 'HTML' },
  { value: 'bbcode', label: 'BBCode' },
];

const escapeAttr = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The file's URL as a link, or as an image in Markdown, HTML or BBCode. */
export function linkAs(format: LinkFormat, url: string, name: string): string {
  switch (format) {
    case 'markdown':
      return `![${name.replace(/[[\]]/g, '')}](${url})`;
    case 'html':
      return `<img src="${escapeAttr(url)}" alt="${escapeAttr(name)}">`;
    case 'bbcode':
      return `[img]${url}[/img]`;
    default:
      return url;
  }
}

/** An address from API data as a URL if it is http(s) (a relative one: on this site), else undefined: never `javascript:`. */
export function webUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string' || !value) return undefined;
  try {
    const url = new URL(value, location.origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Copies text to the clipboard; answers whether it worked. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
