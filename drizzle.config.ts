import { defineConfig } from 'drizzle-kit';

// Only drizzle-kit reads this: `npm run db:generate` writes a new migration from the schema.
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./shared/db/schema.ts', './shared/db/oauth.schema.ts', './shared/db/integrations.schema.ts'],
  out: './shared/db/migrations',
});
