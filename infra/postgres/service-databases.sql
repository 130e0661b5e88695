-- The services' databases beside the gateway's (POSTGRES_DB=vop), for docker-compose.yml; the same list
-- as SERVICE_DATABASES in infra/local/postgres.sh. Matching's two roles share vop_matching.
CREATE DATABASE vop_matching OWNER vop;
CREATE DATABASE vop_batch OWNER vop;
CREATE DATABASE vop_analytics OWNER vop;
CREATE DATABASE vop_webhooks OWNER vop;
