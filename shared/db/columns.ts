import { timestamp } from 'drizzle-orm/pg-core';

// Column shapes every table file uses: times with their zone, read as Date.
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
export const createdAt = () => ts('created_at').notNull().defaultNow();
