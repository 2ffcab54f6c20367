-- The chain's second database: the desk's live channel (FI_LIVE_DATABASE_URL), beside POSTGRES_DB (the corpus).
-- Run once by the postgres image on an empty volume (/docker-entrypoint-initdb.d).
CREATE DATABASE desk_live OWNER fi;
