import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ServiceConfig } from '@vop/config';
import { parse } from 'yaml';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
}

const compose = parse(await readFile(path.join(repoRoot, 'docker-compose.yml'), 'utf8'), {
  merge: true,
}) as ComposeFile;
const template = await readFile(
  path.join(repoRoot, 'infra/local/kafka/server.properties.template'),
  'utf8',
);

/** Kafka settings as infra/local runs them, minus what is host-specific. */
function localKafkaSettings(): Map<string, string> {
  const hostSpecific = new Set([
    'log.dirs',
    'listeners',
    'advertised.listeners',
    'controller.quorum.voters',
  ]);
  const settings = new Map<string, string>();
  for (const line of template.split('\n')) {
    const match = /^([a-z0-9.]+)=(.*)$/.exec(line.trim());
    if (match && !hostSpecific.has(match[1] as string))
      settings.set(match[1] as string, match[2] as string);
  }
  return settings;
}

describe('docker-compose.yml matches what the tests run', () => {
  it('every application service starts a built entry point that exists in the workspace', async () => {
    for (const name of ['gateway', 'matching', 'webhook-dispatcher', 'analytics', 'batch']) {
      const service = compose.services[name];
      assert.ok(service, name);
      const script = service.command?.at(-1) as string;
      assert.equal(script, `services/${name}/dist/main.js`);
      await readFile(path.join(repoRoot, 'services', name, 'src/main.ts'));
    }
  });

  it('application environment variables are all known to the configuration schema and complete for distributed mode', () => {
    const known = new Set(Object.keys(ServiceConfig.shape));
    for (const name of ['gateway', 'matching', 'webhook-dispatcher', 'analytics', 'batch']) {
      const environment = compose.services[name]?.environment ?? {};
      for (const key of Object.keys(environment))
        assert.ok(known.has(key), `${name}: ${key} is not a configuration setting`);
      assert.ok(
        environment.DATABASE_URL && environment.KAFKA_BROKERS,
        `${name} lacks DATABASE_URL or KAFKA_BROKERS`,
      );
      assert.equal(ServiceConfig.safeParse(environment).success, true, name);
    }
  });

  it("gives every service but the gateway a database of its own, made by both set-ups, with the subject keys in the gateway's", async () => {
    const databaseOf = (name: string): string => {
      const url = compose.services[name]?.environment?.DATABASE_URL;
      assert.ok(url, `${name} has a DATABASE_URL`);
      return new URL(url).pathname.slice(1);
    };
    const gatewayDatabase = databaseOf('gateway');
    const others = ['matching', 'matching-batch', 'webhook-dispatcher', 'analytics', 'batch'];
    const serviceDatabases = new Set(others.map(databaseOf));
    // Matching's two roles share one database (both read its account projection); no other two do.
    assert.equal(databaseOf('matching-batch'), databaseOf('matching'));
    assert.equal(serviceDatabases.size, others.length - 1);
    assert.ok(!serviceDatabases.has(gatewayDatabase));
    for (const name of others) {
      const keys = compose.services[name]?.environment?.VOP_KEYSTORE_DATABASE_URL;
      assert.ok(keys, `${name} reads subject keys from the gateway's database`);
      assert.equal(new URL(keys).pathname.slice(1), gatewayDatabase, name);
    }
    const initScript = await readFile(
      path.join(repoRoot, 'infra/postgres/service-databases.sql'),
      'utf8',
    );
    const localScript = await readFile(path.join(repoRoot, 'infra/local/postgres.sh'), 'utf8');
    const localDatabases = /SERVICE_DATABASES=\(([^)]*)\)/.exec(localScript)?.[1]?.split(/\s+/);
    for (const database of serviceDatabases) {
      assert.match(initScript, new RegExp(`CREATE DATABASE ${database} `), database);
      assert.ok(localDatabases?.includes(database), `infra/local/postgres.sh makes ${database}`);
    }
  });

  it('the Kafka broker has the same settings as infra/local/kafka (KRaft, replication factor 1 for internal topics)', () => {
    const environment = compose.services.kafka?.environment ?? {};
    const settings = localKafkaSettings();
    assert.ok(settings.size > 10);
    const compared = [
      'process.roles',
      'num.partitions',
      'auto.create.topics.enable',
      'offsets.topic.replication.factor',
      'transaction.state.log.replication.factor',
      'transaction.state.log.min.isr',
      'group.initial.rebalance.delay.ms',
      'controller.listener.names',
      'inter.broker.listener.name',
      'listener.security.protocol.map',
    ];
    for (const key of compared) {
      const envKey = `KAFKA_${key.toUpperCase().replace(/\./g, '_')}`;
      assert.equal(environment[envKey], settings.get(key), envKey);
    }
  });

  it('uses the Kafka and PostgreSQL versions that infra/local installs', async () => {
    const pom = await readFile(path.join(repoRoot, 'infra/local/kafka/pom.xml'), 'utf8');
    const kafkaVersion = /<kafka.version>(.*)<\/kafka.version>/.exec(pom)?.[1];
    assert.equal(compose.services.kafka?.image, `apache/kafka:${kafkaVersion}`);
    const postgresScript = await readFile(path.join(repoRoot, 'infra/local/postgres.sh'), 'utf8');
    assert.match(postgresScript, /WANTED_MAJOR=15/);
    assert.equal(compose.services.postgres?.image, 'postgres:15');
  });
});
