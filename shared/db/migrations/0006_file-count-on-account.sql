ALTER TABLE "accounts" ADD COLUMN "file_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Existing accounts start from what they hold now.
UPDATE "accounts" SET "file_count" = c.n FROM (SELECT "account_id", count(*)::int AS n FROM "files" WHERE "account_id" IS NOT NULL GROUP BY "account_id") c WHERE c."account_id" = "accounts"."id";
