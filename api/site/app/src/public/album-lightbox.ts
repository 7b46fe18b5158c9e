import type { LightboxItem } from '../lightbox/lightbox.js';

const KINDS = ['image', 'video', 'other'] as const;

/** A tile's lightbox item, from the data attributes AlbumGrid puts on its link. */
function itemOf(link: HTMLAnchorElement): LightboxItem {
  const { viewKind, viewSrc, viewName, viewWidth, viewHeight } = link.dataset;
  const name = viewName ?? link.textContent ?? '';
  return {
    src: viewSrc ?? '',
    alt: name,
    name,
    href: link.href,
    kind: KINDS.find((kind) => kind === viewKind) ?? 'other',
    ...(viewWidth && viewHeight ? { width: Number(viewWidth), height: Number(viewHeight) } : {}),
  };
}

/**
 * Album grids (AlbumGrid) open their files in the lightbox: a click on a tile (without a modifier
 * key, which keeps the link's own meaning) shows it there, and closing returns to the tile it ends on.
 * The lightbox (and Preact) load only on pages that have a grid.
 */
export function enhanceAlbumGrids(): void {
  const grids = document.querySelectorAll<HTMLElement>('[data-lightbox-grid]');
  if (grids.length === 0) return;
  const loaded = Promise.all([import('preact'), import('../lightbox/lightbox.js')]);
  for (const grid of grids) {
    const links = [...grid.querySelectorAll<HTMLAnchorElement>('a[data-view-kind]')];
    const items = links.map(itemOf);
    grid.addEventListener('click', (event) => {
      const link = (event.target as Element).closest('a[data-view-kind]');
      const index = links.indexOf(link as HTMLAnchorElement);
      if (index < 0 || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      void loaded.then(([{ h, render }, { Lightbox }]) => {
        const host = document.body.appendChild(document.createElement('div'));
        let current = index;
        const close = () => {
          render(null, host);
          host.remove();
          links[current]?.focus();
        };
        const show = (i: number) => {
          current = i;
          render(h(Lightbox, { items, index: i, onIndexChange: show, onClose: close }), host);
        };
        show(index);
      });
    });
  }
}
