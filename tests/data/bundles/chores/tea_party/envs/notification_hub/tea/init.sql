INSERT INTO notifications VALUES ('ntf_seed', 'mei', 'shop', 'promo', NULL, 'Cake sale', 'Cakes are 10% off.', '{}', '2026-03-01T02:00:00Z', 0);
