-- The director (or the admin) may confirm a result for a seated player who cannot sign in: the
-- confirmation then names the director's API key. NULL: the player confirmed himself.
ALTER TABLE confirmations ADD COLUMN on_behalf_by uuid;
