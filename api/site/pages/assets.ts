import sharp from 'sharp';

// The site's icon, served at /assets/favicon.svg (every page links it) and as a PNG (MCP clients).
export const SITE_ICON_SVG_PATH = '/assets/favicon.svg';
export const SITE_ICON_PNG_PATH = '/assets/icon-256.png';

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f4fc2"/><path d="M9 21l5-6 4 4 3-3 4 5z" fill="#fff"/><circle cx="12" cy="11" r="2.5" fill="#fff"/></svg>`;

let iconPng: Promise<Buffer> | undefined;

/** The icon as a 256 px PNG, drawn from the SVG on first use (clients must show PNG, SVG only should). */
export function siteIconPng(): Promise<Buffer> {
  iconPng ??= sharp(Buffer.from(FAVICON_SVG), { density: 72 * 8 }).resize(256, 256).png().toBuffer();
  return iconPng;
}
