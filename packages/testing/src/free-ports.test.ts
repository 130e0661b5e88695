import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { describe, it } from 'node:test';
import { freePort, freePortRange } from './free-ports.js';

async function ephemeralStart(): Promise<number> {
  const text = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => '');
  return Number(text.trim().split(/\s+/)[0]) || 32_768;
}

function listen(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('free ports for servers a test starts in another process', () => {
  it('are below the ephemeral range, where no outgoing connection takes a port meanwhile', async () => {
    const start = await ephemeralStart();
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      assert.ok(port >= 1_024 && port < start, `${port} is below ${start}`);
    }
  });

  it('are never handed out twice, even to callers asking at the same moment', async () => {
    const ports = await Promise.all(Array.from({ length: 200 }, () => freePort()));
    assert.equal(new Set(ports).size, ports.length);
  });

  it('give consecutive ports that can all be bound', async () => {
    const base = await freePortRange(6);
    const servers = await Promise.all(Array.from({ length: 6 }, (_, i) => listen(base + i)));
    for (const server of servers) server.close();
  });
});
