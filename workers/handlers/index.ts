import type { HandlerMap } from '../handler.js';
import { cachePurge } from './cache-purge.handler.js';
import { domainCheck } from './domain-check.handler.js';
import { domainsRenew } from './domains-renew.handler.js';
import { fileExpire } from './file-expire.handler.js';
import { fileThumbnail } from './file-thumbnail.handler.js';
import { filesExpireSweep } from './files-expire-sweep.handler.js';
import { moderationCheck } from './moderation-check.handler.js';
import { moderationSweep } from './moderation-sweep.handler.js';
import { notifyBroadcast } from './notify-broadcast.handler.js';
import { oauthPrune } from './oauth-prune.handler.js';
import { objectDelete } from './object-delete.handler.js';
import { objectsDelete } from './objects-delete.handler.js';
import { pollsCloseDue } from './polls-close-due.handler.js';
import { storageReconcile } from './storage-reconcile.handler.js';
import { uploadsExpire } from './uploads-expire.handler.js';
import { urlFetch } from './url-fetch.handler.js';
import { webhookDeliver } from './webhook-deliver.handler.js';
import { webhooksSweep } from './webhooks-sweep.handler.js';

/** One handler per job name of shared/jobs.ts. */
export const handlers: HandlerMap = {
  'object.delete': objectDelete,
  'objects.delete': objectsDelete,
  'storage.reconcile': storageReconcile,
  'file.expire': fileExpire,
  'files.expire-sweep': filesExpireSweep,
  'url.fetch': urlFetch,
  'cache.purge': cachePurge,
  'notify.broadcast': notifyBroadcast,
  'polls.close-due': pollsCloseDue,
  'oauth.prune': oauthPrune,
  'uploads.expire': uploadsExpire,
  'domain.check': domainCheck,
  'domains.renew': domainsRenew,
  'moderation.check': moderationCheck,
  'moderation.sweep': moderationSweep,
  'file.thumbnail': fileThumbnail,
  'webhook.deliver': webhookDeliver,
  'webhooks.sweep': webhooksSweep,
};
