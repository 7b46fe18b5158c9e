import { PROVIDER_NAME } from '../../../shared/services/media/embed.service.js';
import type { ThumbnailImage } from '../../../shared/services/media/thumbnails/thumbnail.service.js';
import { html, type SafeHtml } from './html.js';

/** What a pasted link of a page previews as. */
export interface EmbedCard {
  title: string;
  description: string;
  /** the page's own absolute URL */
  url: string;
  /** the preview rendition of its image, if it has one */
  image: ThumbnailImage | null;
}

/**
 * The link-preview tags of a public page (albums, password-less share links): OpenGraph and Twitter
 * with the preview image and its size, and the oEmbed discovery link at `{baseUrl}/api/oembed`.
 */
export function embedTags(card: EmbedCard, baseUrl: string): SafeHtml {
  const oembed = `${baseUrl}/api/oembed?url=${encodeURIComponent(card.url)}`;
  const image = card.image
    ? html`<meta property="og:image" content="${card.image.url}">
<meta property="og:image:type" content="image/webp">
<meta property="og:image:width" content="${card.image.width}">
<meta property="og:image:height" content="${card.image.height}">
<meta name="twitter:card" content="summary_large_image">
<meta name="twitter:image" content="${card.image.url}">`
    : html`<meta name="twitter:card" content="summary">`;
  return html`<meta property="og:type" content="website">
<meta property="og:site_name" content="${PROVIDER_NAME}">
<meta property="og:title" content="${card.title}">
<meta property="og:description" content="${card.description}">
<meta property="og:url" content="${card.url}">
<meta name="twitter:title" content="${card.title}">
<meta name="twitter:description" content="${card.description}">
${image}
<link rel="alternate" type="application/json+oembed" href="${oembed}" title="${card.title}">`;
}
