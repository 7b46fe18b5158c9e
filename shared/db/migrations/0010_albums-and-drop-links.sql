CREATE TABLE "drop_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"folder_id" uuid,
	"token_hash" text NOT NULL,
	"token_sealed" text NOT NULL,
	"note" text,
	"max_size_bytes" bigint,
	"status" text DEFAULT 'pending' NOT NULL,
	"file_id" uuid,
	"claimed_at" timestamp with time zone,
	"received_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "folders" ADD COLUMN "shared_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "drop_links" ADD CONSTRAINT "drop_links_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "drop_links" ADD CONSTRAINT "drop_links_folder_id_folders_id_fk" FOREIGN KEY ("folder_id") REFERENCES "public"."folders"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "drop_links" ADD CONSTRAINT "drop_links_file_id_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."files"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "drop_links_token_hash_uq" ON "drop_links" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "drop_links_account_created_idx" ON "drop_links" USING btree ("account_id","created_at");