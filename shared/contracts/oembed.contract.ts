import { z } from 'zod';
import { count } from './common.contract.js';

// oEmbed 1.0 (https://oembed.com/): the answer is the bare object, not wrapped in {success, data}.
const common = {
  version: z.literal('1.0'),
  title: z.string(),
  provider_name: z.string(),
  provider_url: z.url(),
};

const photoSchema = z.object({
  ...common,
  type: z.literal('photo'),
  url: z.url().meta({ description: 'The image itself' }),
  width: count.meta({ description: 'The image’s displayed width in pixels (EXIF orientation applied)' }),
  height: count,
});

const linkSchema = z.object({
  ...common,
  type: z.literal('link'),
  thumbnail_url: z.url().optional().meta({ description: 'The preview rendition (WebP, at most 1280 px), once made' }),
  thumbnail_width: count.optional(),
  thumbnail_height: count.optional(),
});

export const oembedSchema = z.discriminatedUnion('type', [photoSchema, linkSchema]).meta({
  id: 'OEmbed',
  description: 'A public image is a photo; an album (or another public file) a link with its preview as thumbnail',
});
export type OEmbed = z.output<typeof oembedSchema>;
