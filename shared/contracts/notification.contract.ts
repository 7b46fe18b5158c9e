import { z } from 'zod';
import { count, isoDate, uuid } from './common.contract.js';

/** A notification, as listed and as the stream's `notification` event carries it. */
export const notificationSchema = z
  .object({
    id: uuid,
    userId: uuid,
    type: z.string(),
    title: z.string(),
    message: z.string(),
    read: z.boolean(),
    data: z.record(z.string(), z.unknown()).meta({ example: { link: 'https://example.com', linkText: 'Open' } }),
    broadcastId: uuid.nullable(),
    timestamp: isoDate,
  })
  .meta({ id: 'Notification' });
export type Notification = z.output<typeof notificationSchema>;

export const notificationListSchema = z.object({ notifications: z.array(notificationSchema).max(50), unreadCount: count });
