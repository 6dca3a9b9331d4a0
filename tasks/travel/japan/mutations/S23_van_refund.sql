INSERT INTO transactions (tx_id, account_id, posted_at, amount_minor, kind, counterparty, memo, balance_after_minor)
SELECT 'tx_kfh_refund_0513', 'acc_liwei_main', '2026-05-13T10:00:00+08:00', 160000, 'transfer_in', 'Kansai Family Hire Co., Ltd.', 'Refund KFH-2611 (vehicle breakdown)', balance_minor + 160000
FROM accounts WHERE account_id = 'acc_liwei_main';
UPDATE accounts SET balance_minor = balance_minor + 160000 WHERE account_id = 'acc_liwei_main';
