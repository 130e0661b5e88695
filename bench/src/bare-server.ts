import https from 'node:https';
import { yardstickTls } from './yardstick-tls.js';

/**
 * The yardstick: a bare node:https endpoint that parses a JSON body and answers JSON, with the same TLS
 * settings as the gateway (TLS 1.3, client certificate required). Prints its port on stdout.
 */
const [certPath, keyPath, caPath] = process.argv.slice(2);
if (!certPath || !keyPath || !caPath)
  throw new Error('usage: bare-server <cert.pem> <key.pem> <ca.pem>');
const server = https.createServer(await yardstickTls(certPath, keyPath, caPath), (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      party?: { name?: string };
    };
    const payload = JSON.stringify({ partyNameMatch: body.party?.name ? 'MTCH' : 'NOAP' });
    res
      .writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
      })
      .end(payload);
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
