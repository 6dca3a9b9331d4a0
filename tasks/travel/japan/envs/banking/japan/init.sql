INSERT INTO accounts (account_id, user_id, type, name, balance_minor, currency, opened_at, frozen) VALUES
  ('acc_liwei_main', 'liwei', 'checking', 'CMB current account', 18640000, 'CNY', '2015-06-01T09:00:00+08:00', 0),
  ('acc_liwei_save', 'liwei', 'savings', 'CMB savings', 42000000, 'CNY', '2015-06-01T09:00:00+08:00', 0);
INSERT INTO payees (payee_id, user_id, name, account_no, account_no_masked, bank_name, added_at) VALUES
  ('pay_kfh', 'liwei', 'Kansai Family Hire Co., Ltd.', '0009 7788 1200 4417', '****4417', 'MUFG Bank Kyoto', '2026-04-10T15:00:00+08:00'),
  ('pay_jinqiao', 'liwei', 'Jinqiao Travel Service Co., Ltd.', '3100 1500 8800 2026', '****2026', 'Bank of Shanghai', '2026-04-15T10:00:00+08:00'),
  ('pay_sh_power', 'liwei', 'State Grid Shanghai', '3100 0000 0000 0001', '****0001', 'ICBC', '2020-01-01T00:00:00+08:00');
INSERT INTO transactions (tx_id, account_id, posted_at, amount_minor, kind, counterparty, memo, balance_after_minor) VALUES
  ('tx_salary_0410', 'acc_liwei_main', '2026-04-10T09:00:00+08:00', 3200000, 'deposit', 'Acme Tech', 'April salary', 20500000),
  ('tx_kfh_0410', 'acc_liwei_main', '2026-04-10T15:05:00+08:00', -160000, 'payment', 'Kansai Family Hire Co., Ltd.', 'KFH-2611 Nara day trip 8 May', 20340000),
  ('tx_jinqiao_0415', 'acc_liwei_main', '2026-04-15T10:10:00+08:00', -60000, 'payment', 'Jinqiao Travel Service Co., Ltd.', 'Visa service fee x2 (parents)', 20280000),
  ('tx_rent_0415', 'acc_liwei_main', '2026-04-15T12:00:00+08:00', -1640000, 'payment', 'Landlord Zhou', 'May rent', 18640000);
