import { Router } from '@koa/router';
import { z } from 'zod';
import type { NotificationHub } from '../../shared/services/notifications/notification-hub.js';
import { validate } from '../../shared/validation.js';
import { openNotificationStream } from '../sse/notification-stream.js';
import { needs } from '../middleware/auth.middleware.js';
import { type AppState, principalOf } from '../state.js';
import type { RouteDeps } from './route-deps.js';

export const markReadSchema = z.object({
  notificationId: z.string({ error: 'notificationId is required' }).min(1, 'notificationId is required'),
});
export const voteSchema = z.object({
  pollId: z.string({ error: 'pollId is required' }).min(1, 'pollId is required'),
  optionId: z.string({ error: 'optionId is required' }).min(1, 'optionId is required'),
});

/** Notifications (list, mark read, live stream) and feedback polls. */
export function notificationsRoutes({ services, config }: RouteDeps, hub: NotificationHub) {
  const router = new Router<AppState>();

  router.get('/notifications', needs('account:read'), async (ctx) => {
    ctx.body = { success: true, data: await services.notifications.list(principalOf(ctx)) };
  });

  router.get('/notifications/stream', needs('account:read'), async (ctx) => {
    await openNotificationStream(ctx, principalOf(ctx), { hub, notifications: services.notifications, heartbeatMs: config.sseHeartbeatMs });
  });

  router.post('/notifications/read', needs('account:read'), async (ctx) => {
    const { notificationId } = validate(markReadSchema, ctx.request.body ?? {});
    await services.notifications.markRead(principalOf(ctx), notificationId);
    ctx.body = { success: true, message: 'Notification marked as read' };
  });

  router.get('/polls', needs('account:read'), async (ctx) => {
    ctx.body = { success: true, data: { polls: await services.polls.list(principalOf(ctx)) } };
  });

  router.post('/polls/vote', needs('account:read'), async (ctx) => {
    ctx.body = { success: true, poll: await services.polls.vote(principalOf(ctx), validate(voteSchema, ctx.request.body)) };
  });

  return router;
}
