-- Run first by systems/*/client query for sqlcmd (lib/sql-clients.sh): no "(N rows affected)"
-- lines between the result rows of the file that follows.
SET NOCOUNT ON;
GO
