INSERT INTO users (user_id, name, avatar_url, email, type) VALUES
  ('u_liwei', 'Li Wei', NULL, 'li.wei@mailbox.example', 'person'),
  ('u_assistant', 'Assistant', NULL, NULL, 'bot');
INSERT INTO workspaces (workspace_id, name, owner_user_id) VALUES ('ws_liwei', 'Li Wei', 'u_liwei');
INSERT INTO pages (page_id, parent_type, parent_id, title, archived, created_time, last_edited_time, properties_json) VALUES
  ('pg_home', 'workspace', 'ws_liwei', 'Home', 0, '2025-01-02T10:00:00+08:00', '2025-01-02T10:00:00+08:00', '{}'),
  ('pg_reading', 'page_id', 'pg_home', 'Reading list', 0, '2025-03-02T10:00:00+08:00', '2025-03-02T10:00:00+08:00', '{}'),
  ('pg_kyoto2019', 'page_id', 'pg_home', 'Kyoto 2019 notes (old trip)', 0, '2019-10-20T10:00:00+08:00', '2019-10-20T10:00:00+08:00', '{}');
INSERT INTO blocks (block_id, parent_block_id, parent_page_id, type, content_json, has_children, archived, position, created_time, last_edited_time) VALUES
  ('blk_k19_1', NULL, 'pg_kyoto2019', 'paragraph', '{"rich_text":[{"type":"text","text":{"content":"2019: stayed near Kyoto station, too noisy. Fushimi Inari stairs were too much for Dad."},"plain_text":"2019: stayed near Kyoto station, too noisy. Fushimi Inari stairs were too much for Dad."}]}', 0, 0, 0, '2019-10-20T10:00:00+08:00', '2019-10-20T10:00:00+08:00');
