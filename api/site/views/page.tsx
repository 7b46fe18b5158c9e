import type { ComponentChildren } from 'preact';
import { SiteHeader } from './site-header.js';

/** Who is looking and where: what every server-rendered page's frame needs. */
export interface PageFrame {
  account: { username: string } | null;
  /** the path and query asked for: where the theme switch returns to without script */
  path: string;
  /**
   * '' on the service's own hosts; the site's origin on hosts that serve only files (a personal
   * subdomain, a custom domain), so the page's links lead to the site. Such pages carry no forms.
   */
  site: string;
}

/** The frame of every server-rendered page: skip link, header, then the page's own content. */
export function Page({ frame, wide = false, children }: { frame: PageFrame; wide?: boolean; children: ComponentChildren }) {
  return (
    <>
      <a class="skip" href="#content">
        Skip to content
      </a>
      {frame.site ? (
        <header class="site-head">
          <a href={`${frame.site}/`} class="brand">
            Hosted Files
          </a>
        </header>
      ) : (
        <SiteHeader account={frame.account} back={frame.path} />
      )}
      <main id="content" class={wide ? 'page page-wide' : 'page'}>
        {children}
      </main>
    </>
  );
}
