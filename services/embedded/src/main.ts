import { loadConfig } from '@vop/config';
import { startServiceTracing } from '@vop/lifecycle';
import { createLogger } from '@vop/observability';
import { DEVELOPMENT_KEY_SCOPES, developmentKeyPath } from '@vop/gateway';
import { DEV_PKCS12_PASSWORD } from '@vop/pki';
import { startEmbedded } from './service.js';

const config = loadConfig();
const tracing = startServiceTracing('vop-embedded');
const logger = createLogger({ service: 'vop-embedded', level: config.LOG_LEVEL });
const service = await startEmbedded({ config, logger });

const { pki, url } = service;
process.stdout.write(
  [
    '',
    `Payee Verification Service (embedded, ${config.VOP_ENVIRONMENT}) listening on ${url}`,
    `  data folder:        ${config.VOP_DATA_DIR}`,
    `  CA certificate:     ${pki.caPath}`,
    `  server certificate: ${pki.serverCertPath}`,
    `  client certificate: ${pki.clientCertPath} (participant), ${pki.adminCertPath} (admin)`,
    ...(pki.adminP12Path && pki.clientP12Path
      ? [
          `  for a browser:      ${pki.adminP12Path} (admin), ${pki.clientP12Path} (participant), password ${DEV_PKCS12_PASSWORD}`,
          // A live deployment has no /test (404): only a test one names it.
          `  pages:              ${url}/admin (dashboard), ${url}/admin/stats${config.VOP_ENVIRONMENT === 'test' ? `, ${url}/test` : ''}`,
        ]
      : []),
    ...(config.VOP_PROFILE === 'development' && config.VOP_ENVIRONMENT === 'test'
      ? [
          `  test API key:       ${developmentKeyPath(config.VOP_DATA_DIR)} (scopes ${DEVELOPMENT_KEY_SCOPES.join(', ')};` +
            ' Authorization: Bearer <key>, from a client without a certificate)',
        ]
      : []),
    '',
    "Try it (account records are the bank's own data: the admin certificate writes them; participants verify):",
    `  curl --cacert ${pki.caPath} --cert ${pki.adminCertPath} --key ${pki.adminKeyPath} -H 'Content-Type: application/json' \\`,
    `    -d '{"iban":"DE89370400440532013000","name":"Erika Mustermann"}' ${url}/accounts`,
    `  curl --cacert ${pki.caPath} --cert ${pki.clientCertPath} --key ${pki.clientKeyPath} -H 'Content-Type: application/json' \\`,
    `    -d '{"party":{"name":"Erika Mustermann"},"partyAccount":{"iban":"DE89370400440532013000"},"partyAgent":{"financialInstitutionId":{"bicfi":"COBADEFFXXX"}},"requestingAgent":{"financialInstitutionId":{"bicfi":"DEUTDEFFXXX"}}}' \\`,
    `    ${url}/vop/verify`,
    '  EPC inter-PSP API v1.1.1 (the same check; X-Request-ID and X-Request-Timestamp required):',
    `  curl --cacert ${pki.caPath} --cert ${pki.clientCertPath} --key ${pki.clientKeyPath} -H 'Content-Type: application/json' \\`,
    `    -H "X-Request-ID: $(cat /proc/sys/kernel/random/uuid)" -H "X-Request-Timestamp: $(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)" \\`,
    `    -d '{"party":{"name":"Erika Mustermann"},"partyAccount":{"iban":"DE89370400440532013000"},"partyAgent":{"financialInstitutionId":{"bicfi":"COBADEFFXXX"}},"requestingAgent":{"financialInstitutionId":{"bicfi":"DEUTDEFFXXX"}}}' \\`,
    `    ${url}/vop/v1/payee-verifications`,
    // The development profile of a test deployment allows a receiver on this machine (webhook settings).
    ...(config.VOP_PROFILE === 'development' && config.VOP_ENVIRONMENT === 'test'
      ? [
          'Webhooks for your verifications (a receiver on this machine, e.g. port 9000):',
          `  curl --cacert ${pki.caPath} --cert ${pki.clientCertPath} --key ${pki.clientKeyPath} -H 'Content-Type: application/json' \\`,
          `    -d '{"url":"http://127.0.0.1:9000/hooks","events":["verification.success"],"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}' ${url}/webhooks`,
        ]
      : [
          'Webhooks for your verifications (a receiver at a public https:// address; others need VOP_WEBHOOK_ALLOWED_NETWORKS):',
          `  curl --cacert ${pki.caPath} --cert ${pki.clientCertPath} --key ${pki.clientKeyPath} -H 'Content-Type: application/json' \\`,
          `    -d '{"url":"https://receiver.example/hooks","events":["verification.success"],"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}' ${url}/webhooks`,
        ]),
    '',
  ].join('\n'),
);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  await service.stop();
  await tracing.shutdown();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
