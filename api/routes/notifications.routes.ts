import { Router } from '@koa/router';
import type { Container } from '../../shared/container.js';
import type { NotificationHub } from '../../shared/services/notification-hub.js';
import { openNotificationStream } from '../sse/notification-stream.js';
import { accountOf, type AppState } from '../state.js';

/** Notifications (list, mark read, live stream) and feedback polls. */
export function notificationsRoutes({ services, config }: Container, hub: NotificationHub) {
  const router = new Router<AppState>();

  router.get('/notifications', async (ctx) => {
    ctx.body = { success: true, data: await services.notifications.list(accountOf(ctx)) };
  });

  router.get('/notifications/stream', async (ctx) => {
    await openNotificationStream(ctx, accountOf(ctx), { hub, notifications: services.notifications, heartbeatMs: config.sseHeartbeatMs });
  });

  router.post('/notifications/read', async (ctx) => {
    const body = (ctx.request.body ?? {}) as { notificationId?: unknown };
    await services.notifications.markRead(accountOf(ctx), body.notificationId);
    ctx.body = { success: true, message: 'Notification marked as read' };
  });

  router.get('/polls', async (ctx) => {
    ctx.body = { success: true, data: { polls: await services.polls.list(accountOf(ctx)) } };
  });

  router.post('/polls/vote', async (ctx) => {
    ctx.body = { success: true, poll: await services.polls.vote(accountOf(ctx), ctx.request.body) };
  });

  return router;
}
