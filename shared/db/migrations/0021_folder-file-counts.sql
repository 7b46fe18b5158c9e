DROP INDEX "files_account_created_idx";--> statement-breakpoint
DROP INDEX "files_account_size_idx";--> statement-breakpoint
DROP INDEX "files_account_original_idx";--> statement-breakpoint
DROP INDEX "files_account_folder_created_idx";--> statement-breakpoint
CREATE INDEX "files_account_created_id_idx" ON "files" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "files_account_size_id_idx" ON "files" USING btree ("account_id","size","id");--> statement-breakpoint
CREATE INDEX "files_account_original_id_idx" ON "files" USING btree ("account_id","original_name","id");--> statement-breakpoint
CREATE INDEX "files_account_folder_created_id_idx" ON "files" USING btree ("account_id","folder_id","created_at","id");--> statement-breakpoint
ALTER TABLE "folders" ADD COLUMN "file_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "folders" SET "file_count" = c.n
FROM (SELECT "folder_id", count(*)::int AS n FROM "files" WHERE "folder_id" IS NOT NULL GROUP BY "folder_id") c
WHERE "folders"."id" = c."folder_id";--> statement-breakpoint
CREATE FUNCTION files_folder_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids uuid[];
  deltas int[];
BEGIN
  -- Each trigger names only the transition tables its event has; a branch is planned when it runs.
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(d.folder_id), array_agg(d.n) INTO ids, deltas
    FROM (SELECT folder_id, count(*)::int AS n FROM new_rows WHERE folder_id IS NOT NULL GROUP BY folder_id) d;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(d.folder_id), array_agg(d.n) INTO ids, deltas
    FROM (SELECT folder_id, -count(*)::int AS n FROM old_rows WHERE folder_id IS NOT NULL GROUP BY folder_id) d;
  ELSE
    SELECT array_agg(d.folder_id), array_agg(d.n) INTO ids, deltas
    FROM (
      SELECT m.folder_id, sum(m.n)::int AS n
      FROM (
        SELECT after_row.folder_id, 1 AS n FROM new_rows after_row JOIN old_rows before_row USING (id)
        WHERE after_row.folder_id IS DISTINCT FROM before_row.folder_id AND after_row.folder_id IS NOT NULL
        UNION ALL
        SELECT before_row.folder_id, -1 FROM new_rows after_row JOIN old_rows before_row USING (id)
        WHERE after_row.folder_id IS DISTINCT FROM before_row.folder_id AND before_row.folder_id IS NOT NULL
      ) m
      GROUP BY m.folder_id
      HAVING sum(m.n) <> 0
    ) d;
  END IF;
  IF ids IS NULL THEN
    RETURN NULL;
  END IF;
  -- The owners' rows first: uploads lock them before inserting and deletes right after.
  PERFORM 1 FROM accounts WHERE id IN (SELECT account_id FROM folders WHERE id = ANY (ids)) ORDER BY id FOR NO KEY UPDATE;
  UPDATE folders f SET file_count = f.file_count + d.n FROM unnest(ids, deltas) AS d(id, n) WHERE f.id = d.id;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER files_folder_counts_insert AFTER INSERT ON "files" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION files_folder_counts();--> statement-breakpoint
CREATE TRIGGER files_folder_counts_delete AFTER DELETE ON "files" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION files_folder_counts();--> statement-breakpoint
CREATE TRIGGER files_folder_counts_update AFTER UPDATE ON "files" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION files_folder_counts();
