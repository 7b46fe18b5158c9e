import type { Logger } from './logger.js';

const major = Number(process.versions.node.split('.')[0]);

/** Node 20 (the oldest `engines` allows) left maintenance at the end of April 2026: no security fixes since. */
export const onEndOfLifeNode = major < 22;

/**
 * On an end-of-life Node, says so in one line at start, in place of the libraries' own notices:
 * oidc-provider's is dropped where it is loaded (api/oauth/provider.ts), the AWS SDK's (printed when
 * the S3 client is made) is turned off by its documented switch, so this runs before the container.
 */
export function warnIfEndOfLifeNode(logger: Logger) {
  if (!onEndOfLifeNode) return;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  logger.warn({ node: process.version }, `Node ${major} is end-of-life (since April 2026) and gets no security fixes: run this service on Node 22 LTS`);
}
