// Exits 0 once the broker answers a metadata request (describeCluster + listTopics), 1 otherwise.
// Usage: node ready.mjs <host:port> <timeout-ms>
// kafkajs comes from the messaging package so this script needs nothing of its own.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const messagingPackage = path.resolve(here, '../../../packages/messaging/package.json');
const requireFromMessaging = createRequire(messagingPackage);

let kafkajs;
try {
  kafkajs = requireFromMessaging('kafkajs');
} catch {
  console.error('ready.mjs: kafkajs is not installed (run pnpm install)');
  process.exit(2);
}

const [broker = '127.0.0.1:19092', timeoutArg = '5000'] = process.argv.slice(2);
const timeoutMs = Number(timeoutArg);
const kafka = new kafkajs.Kafka({
  clientId: 'vop-kafka-ready',
  brokers: [broker],
  connectionTimeout: Math.min(timeoutMs, 3000),
  requestTimeout: timeoutMs,
  retry: { retries: 0 },
  logLevel: kafkajs.logLevel.NOTHING,
});
const admin = kafka.admin();
const timer = setTimeout(() => {
  console.error('ready.mjs: timed out');
  process.exit(1);
}, timeoutMs);
try {
  await admin.connect();
  const cluster = await admin.describeCluster();
  await admin.listTopics();
  if (cluster.brokers.length === 0 || cluster.controller === null || cluster.controller < 0) {
    throw new Error('no broker or controller yet');
  }
  await admin.disconnect();
  clearTimeout(timer);
  process.exit(0);
} catch (error) {
  console.error(`ready.mjs: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
