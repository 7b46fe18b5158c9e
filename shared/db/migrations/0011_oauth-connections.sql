CREATE TABLE "oauth_connections" (
	"account_id" uuid NOT NULL,
	"client_id" text NOT NULL,
	"client_name" text,
	"client_uri" text,
	"connected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "oauth_connections_account_id_client_id_pk" PRIMARY KEY("account_id","client_id")
);
--> statement-breakpoint
ALTER TABLE "oauth_models" ADD COLUMN "account_id" text;--> statement-breakpoint
ALTER TABLE "oauth_models" ADD COLUMN "client_id" text;--> statement-breakpoint
ALTER TABLE "oauth_connections" ADD CONSTRAINT "oauth_connections_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oauth_models_account_client_idx" ON "oauth_models" USING btree ("account_id","client_id");