-- Tokyo and Kyoto hotels; prices shown in CNY (the family books through a CNY storefront).
INSERT INTO hotels (hotel_id, name, city, district, geo_lat, geo_lng, star_rating, user_rating, user_rating_count, amenities_json, address_json, policies_json, description, capacity_estimate) VALUES
  ('htl_sumida', 'Sumida Riverside Hotel', 'Tokyo', 'Asakusa', 35.7100, 139.7990, 4, 8.9, 2140, '["breakfast","elevator","family_rooms","wifi","chinese_speaking_staff"]', '{"line1":"2-6-1 Kaminarimon, Taito-ku","city":"Tokyo"}', '{"check_in":"15:00","check_out":"11:00"}', '4 minutes on foot from Asakusa station, quiet river-side rooms.', 40),
  ('htl_shinjuku_grand', 'Shinjuku Grand Tower Hotel', 'Tokyo', 'Shinjuku', 35.6930, 139.7000, 5, 9.2, 5120, '["breakfast","elevator","family_rooms","pool","spa","wifi"]', '{"line1":"1-1-1 Nishi-Shinjuku","city":"Tokyo"}', '{"check_in":"15:00","check_out":"12:00"}', 'Luxury tower hotel above Shinjuku station.', 60),
  ('htl_ueno_station', 'Ueno Station Hotel', 'Tokyo', 'Ueno', 35.7130, 139.7770, 3, 7.6, 980, '["wifi"]', '{"line1":"7-1-1 Ueno, Taito-ku","city":"Tokyo"}', '{"check_in":"15:00","check_out":"10:00"}', 'Compact rooms next to the station.', 30),
  ('htl_kamogawa', 'Kamogawa Garden Hotel', 'Kyoto', 'Gion-Shijo', 35.0040, 135.7720, 4, 9.0, 1730, '["breakfast","elevator","family_rooms","wifi","garden"]', '{"line1":"Shijo-Kawaramachi, Shimogyo-ku","city":"Kyoto"}', '{"check_in":"15:00","check_out":"11:00","contact":"front@kamogawagarden.example"}', 'Garden hotel by the Kamo river, 3 minutes from Gion-Shijo station.', 35),
  ('htl_hanaikada', 'Arashiyama Ryokan Hanaikada', 'Kyoto', 'Arashiyama', 35.0130, 135.6770, 5, 9.5, 610, '["onsen","kaiseki_dinner","breakfast"]', '{"line1":"Saga-Tenryuji, Ukyo-ku","city":"Kyoto"}', '{"check_in":"15:00","check_out":"10:00"}', 'Traditional ryokan with private onsen and kaiseki dinners.', 12),
  ('htl_kyoto_budget', 'Kyoto Station Budget Inn', 'Kyoto', 'Kyoto Station', 34.9850, 135.7580, 2, 7.1, 450, '["wifi"]', '{"line1":"Higashi-Shiokoji, Shimogyo-ku","city":"Kyoto"}', '{"check_in":"16:00","check_out":"10:00"}', 'No-frills rooms near the station; no lift.', 25),
  ('htl_karasuma', 'Karasuma Shijo Hotel', 'Kyoto', 'Karasuma-Shijo', 35.0036, 135.7590, 4, 8.7, 1320, '["breakfast","elevator","family_rooms","wifi"]', '{"line1":"Shijo-Karasuma, Nakagyo-ku","city":"Kyoto"}', '{"check_in":"15:00","check_out":"11:00"}', 'Quiet rooms on a side street, 2 minutes from Shijo subway station.', 45);
WITH RECURSIVE d(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM d WHERE n < 11)
INSERT INTO rate_plans (hotel_id, date, room_type, flavor, nightly_price, currency, inventory_remaining, inventory_capacity, cancellation_policy, refundable_until, breakfast_included, max_occupancy)
SELECT h.hotel_id, date('2026-05-01', '+' || d.n || ' day'), h.room_type, h.flavor, h.price, 'CNY', h.inv, h.inv, h.policy, NULL, h.bf, h.occ
FROM d, (
  SELECT 'htl_sumida' AS hotel_id, 'family_triple' AS room_type, 'flex' AS flavor, 1150 AS price, 3 AS inv, 'Free cancellation until 2 days before arrival' AS policy, 1 AS bf, 3 AS occ
  UNION ALL SELECT 'htl_sumida', 'family_triple', 'prepaid', 990, 3, 'Non-refundable', 1, 3
  UNION ALL SELECT 'htl_sumida', 'double', 'flex', 820, 5, 'Free cancellation until 2 days before arrival', 1, 2
  UNION ALL SELECT 'htl_shinjuku_grand', 'family_triple', 'flex', 2900, 4, 'Free cancellation until 3 days before arrival', 1, 3
  UNION ALL SELECT 'htl_ueno_station', 'triple', 'prepaid', 980, 2, 'Non-refundable', 0, 3
  UNION ALL SELECT 'htl_kamogawa', 'family_triple', 'flex', 1300, 3, 'Free cancellation until 2 days before arrival', 1, 3
  UNION ALL SELECT 'htl_kamogawa', 'family_triple', 'prepaid', 1120, 2, 'Non-refundable', 1, 3
  UNION ALL SELECT 'htl_hanaikada', 'japanese_suite', 'semi', 4800, 2, '50% charge from 7 days before arrival', 1, 4
  UNION ALL SELECT 'htl_kyoto_budget', 'triple', 'prepaid', 620, 4, 'Non-refundable', 0, 3
  UNION ALL SELECT 'htl_karasuma', 'family_triple', 'flex', 1250, 3, 'Free cancellation until 2 days before arrival', 1, 3
  UNION ALL SELECT 'htl_karasuma', 'family_triple', 'prepaid', 1090, 2, 'Non-refundable', 1, 3
) AS h;
