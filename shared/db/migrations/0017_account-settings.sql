ALTER TABLE "accounts" ADD COLUMN "strip_metadata" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "private_by_default" boolean DEFAULT false NOT NULL;