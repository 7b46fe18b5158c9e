ALTER TABLE "files" ADD COLUMN "thumbnail_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "files" ADD COLUMN "thumbnail_width" integer;--> statement-breakpoint
ALTER TABLE "files" ADD COLUMN "thumbnail_height" integer;