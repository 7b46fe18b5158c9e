import { adminCommand, UsageError } from './admin-command.js';

export const notifyCommands = [
  adminCommand({
    name: ['notify'],
    summary: 'Sends one account a notification and prints it, or queues one for every account (--all) and prints {broadcastId}.',
    usage: '(--username U | --all) --type T --title T --message M [--link L] [--link-text X]',
    options: {
      username: { type: 'string', value: 'U', help: 'the account to notify' },
      all: { type: 'boolean', help: 'notify every account instead' },
      type: { type: 'string', required: true, value: 'T', help: 'its type, e.g. system or news' },
      title: { type: 'string', required: true, value: 'T', help: 'its title' },
      message: { type: 'string', required: true, value: 'M', help: 'its text' },
      link: { type: 'string', value: 'L', help: 'a link it carries' },
      'link-text': { type: 'string', value: 'X', help: 'the link’s text' },
    },
    async run(container, values) {
      if (Boolean(values.username) === values.all) throw new UsageError('notify needs either --username or --all');
      const data = {
        ...(values.link ? { link: values.link } : {}),
        ...(values['link-text'] ? { linkText: values['link-text'] } : {}),
      };
      const input = { type: values.type, title: values.title, message: values.message, data };
      await container.redis.connect();
      if (values.all) return container.services.notifications.broadcast(input);
      const account = await container.services.accounts.getByUsername(values.username!);
      return container.services.notifications.notify(account.id, input);
    },
  }),
];
