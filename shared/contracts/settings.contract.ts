import { z } from 'zod';

export const settingsSchema = z
  .object({
    stripMetadata: z.boolean().meta({ description: 'Uploads lose their location, camera and editing metadata (default true)' }),
    privateByDefault: z.boolean().meta({ description: 'New uploads are private: the plain URL answers 404 without a signature (default false)' }),
  })
  .meta({ id: 'Settings' });
export type Settings = z.output<typeof settingsSchema>;

// Strict: an unknown key is a mistake worth a 400, not a silently ignored change.
export const settingsPatchSchema = settingsSchema.partial().strict().meta({ id: 'SettingsPatch' });
export type SettingsPatch = z.output<typeof settingsPatchSchema>;
