#!/bin/sh
# Runs once, when the postgres service initialises an empty volume (/docker-entrypoint-initdb.d). Creates the two
# roles of the package's database:
#   ttc_owner  owns the database (and so its public schema), the tables and the migrations: DATABASE_OWNER_URL;
#   ttc_app    the worker's role, DATABASE_URL: it gets its privileges from `tool-contract migrate`, never here.
# Passwords come from the service's environment through psql variables (quoted by psql, never pasted into SQL).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v owner_password="$TTC_OWNER_PASSWORD" -v app_password="$TTC_APP_PASSWORD" <<'SQL'
CREATE ROLE ttc_owner LOGIN PASSWORD :'owner_password';
CREATE ROLE ttc_app LOGIN PASSWORD :'app_password';
SELECT format('ALTER DATABASE %I OWNER TO ttc_owner', current_database()) \gexec
SQL
