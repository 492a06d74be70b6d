DROP INDEX webhook_deliveries_dead;
ALTER TABLE webhook_deliveries DROP COLUMN dead_at;
