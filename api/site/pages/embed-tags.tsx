import { PROVIDER_NAME } from '../../../shared/services/media/embed.service.js';
import type { ThumbnailImage } from '../../../shared/services/media/thumbnails/thumbnail.service.js';
import { albumSummary, type AlbumView } from '../views/album-page.js';

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
export function EmbedTags({ card, baseUrl }: { card: EmbedCard; baseUrl: string }) {
  const oembed = `${baseUrl}/api/oembed?url=${encodeURIComponent(card.url)}`;
  return (
    <>
      <meta property="og:type" content="website" />
      <meta property="og:site_name" content={PROVIDER_NAME} />
      <meta property="og:title" content={card.title} />
      <meta property="og:description" content={card.description} />
      <meta property="og:url" content={card.url} />
      <meta name="twitter:title" content={card.title} />
      <meta name="twitter:description" content={card.description} />
      {card.image ? (
        <>
          <meta property="og:image" content={card.image.url} />
          <meta property="og:image:type" content="image/webp" />
          <meta property="og:image:width" content={String(card.image.width)} />
          <meta property="og:image:height" content={String(card.image.height)} />
          <meta name="twitter:card" content="summary_large_image" />
          <meta name="twitter:image" content={card.image.url} />
        </>
      ) : (
        <meta name="twitter:card" content="summary" />
      )}
      <link rel="alternate" type="application/json+oembed" href={oembed} title={card.title} />
    </>
  );
}

/** An album page's head for those who may preview it: its description, canonical URL and link-preview tags (`cover`: its preview image). */
export function AlbumHead({ album, cover, baseUrl }: { album: AlbumView; cover: ThumbnailImage | null; baseUrl: string }) {
  const description = albumSummary(album);
  return (
    <>
      <meta name="description" content={description} />
      <EmbedTags card={{ title: album.name, description, url: album.url, image: cover }} baseUrl={baseUrl} />
      <link rel="canonical" href={album.url} />
    </>
  );
}
