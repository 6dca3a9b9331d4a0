INSERT INTO official_accounts (account_id, name, category, description) VALUES
  ('oa_jnto', 'Japan National Tourism Organization', 'travel', 'Official travel information for visitors to Japan'),
  ('oa_mu', 'China Eastern Airlines', 'airline', 'Flight status and service notices');
INSERT INTO official_account_subscriptions (user_id, account_id, subscribed_at) VALUES ('liwei', 'oa_mu', '2025-05-01T10:00:00+08:00');
INSERT INTO official_account_posts (post_id, account_id, title, summary, url, published_at) VALUES
  ('post_mu_0410', 'oa_mu', 'May Day schedule', 'Extra flights Shanghai-Tokyo during the holiday.', NULL, '2026-04-10T10:00:00+08:00');
