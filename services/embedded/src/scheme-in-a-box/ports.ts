import net from 'node:net';

export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly holder: string,
  ) {
    super(
      `port ${port} (${holder}) is in use on 127.0.0.1: stop what holds it, or choose other ports ` +
        'with VOP_SCHEME_PORTS (three, comma separated; 0 picks a free one)',
    );
    this.name = 'PortInUseError';
  }
}

/** Listens on 127.0.0.1:port for a moment: the port a bank asked for, or a free one for 0. */
function probe(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : port;
      server.close(() => resolve(bound));
    });
  });
}

/** Each asked port if free (else a clear error naming whom it was for), a free one for 0. */
export async function claimPorts(asked: readonly { port: number; holder: string }[]) {
  const ports: number[] = [];
  for (const { port, holder } of asked) {
    try {
      const bound = await probe(port);
      if (ports.includes(bound)) throw new PortInUseError(bound, holder);
      ports.push(bound);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'EADDRINUSE')
        throw new PortInUseError(port, holder);
      throw error;
    }
  }
  return ports;
}
