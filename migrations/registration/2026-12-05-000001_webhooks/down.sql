DROP TABLE webhook_attempts; DROP TABLE webhook_deliveries; DROP TABLE webhook_messages; DROP TABLE webhooks;
