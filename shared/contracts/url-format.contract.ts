import { z } from 'zod';
import { URL_FORMATS } from './values.js';

export const urlFormatSettingsSchema = z
  .object({ format: z.enum(URL_FORMATS), subdomainUrl: z.url(), standardUrl: z.url(), customDomainActive: z.boolean(), customDomainUrl: z.url().nullable() })
  .meta({ id: 'UrlFormatSettings' });
export type UrlFormatSettings = z.output<typeof urlFormatSettingsSchema>;
