import { readFile } from 'node:fs/promises';
import https from 'node:https';

/**
 * The yardstick: a bare node:https endpoint that parses a JSON body and answers JSON, with the same TLS
 * settings as the gateway. Prints its port on stdout.
 */
const [certPath, keyPath] = process.argv.slice(2);
if (!certPath || !keyPath) throw new Error('usage: bare-server <cert.pem> <key.pem>');
const server = https.createServer(
  { cert: await readFile(certPath, 'utf8'), key: await readFile(keyPath, 'utf8'), minVersion: 'TLSv1.3', keepAliveTimeout: 65_000 },
  (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { party?: { name?: string } };
      const payload = JSON.stringify({ partyNameMatch: body.party?.name ? 'MTCH' : 'NOAP' });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }).end(payload);
    });
  },
);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
