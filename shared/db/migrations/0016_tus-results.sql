CREATE TABLE "tus_results" (
	"upload_id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"result_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "tus_results_created_idx" ON "tus_results" USING btree ("created_at");