DROP TABLE "usage_daily" CASCADE;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "usage_day" date;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "usage_day_count" integer DEFAULT 0 NOT NULL;