import { themeCookie, themeOf } from '../../views/theme.js';

/**
 * Makes every theme switch (SiteHeader's forms, which post to /theme without script) switch in
 * place: the cookie the server reads next time, and <html data-theme> now. One listener for the
 * whole document, so it also covers headers the app renders later.
 */
export function installThemeSwitch(): void {
  document.addEventListener('submit', (event) => {
    const form = event.target as HTMLFormElement;
    if (!form.matches('[data-theme-switch]')) return;
    const theme = themeOf(new FormData(form).get('theme') as string | null);
    if (!theme) return;
    event.preventDefault();
    document.cookie = themeCookie(theme, location.protocol === 'https:');
    document.documentElement.dataset.theme = theme;
    // The other form's button takes the focus the pressed one had, as it is now hidden.
    const other = document.querySelector<HTMLButtonElement>(`[data-theme-switch] input[name='theme']:not([value='${theme}'])`)?.form?.querySelector('button');
    other?.focus();
  });
}


