ALTER TABLE "accounts" ADD COLUMN "custom_domain" text;--> statement-breakpoint
ALTER TABLE "custom_domains" ADD COLUMN "last_check" jsonb;--> statement-breakpoint
ALTER TABLE "custom_domains" ADD COLUMN "next_check_at" timestamp with time zone;