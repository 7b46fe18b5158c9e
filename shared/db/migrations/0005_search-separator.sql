DROP INDEX "files_names_trgm_idx";--> statement-breakpoint
CREATE INDEX "files_search_trgm_idx" ON "files" USING gin (("filename" || E'\x01' || "original_name") gin_trgm_ops);