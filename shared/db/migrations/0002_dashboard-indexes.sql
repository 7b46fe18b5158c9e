CREATE INDEX "files_account_size_idx" ON "files" USING btree ("account_id","size");--> statement-breakpoint
CREATE INDEX "files_account_original_idx" ON "files" USING btree ("account_id","original_name");--> statement-breakpoint
CREATE INDEX "files_account_folder_created_idx" ON "files" USING btree ("account_id","folder_id","created_at");--> statement-breakpoint
CREATE INDEX "files_names_trgm_idx" ON "files" USING gin (("filename" || ' ' || "original_name") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "files_deletion_token_idx" ON "files" USING btree ("deletion_token_hash");