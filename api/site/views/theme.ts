// The colour theme a visitor chose, kept in a cookie both the server (which renders <html
// data-theme>, so no page flashes the wrong colours) and the scripts (which switch without a reload)
// read. No cookie: the system's preference (prefers-color-scheme).

export const THEME_COOKIE = 'theme';
export const THEMES = ['light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

export function themeOf(value: string | undefined | null): Theme | null {
  return THEMES.find((theme) => theme === value) ?? null;
}

/** The cookie as a script sets it: a year, the whole site, never sent cross-site. */
export function themeCookie(theme: Theme, secure: boolean): string {
  return `${THEME_COOKIE}=${theme}; Path=/; Max-Age=31536000; SameSite=Lax${secure ? '; Secure' : ''}`;
}
