import { eventually, type ServiceProcess } from '@vop/testing';

/** The port a benchmark's own server prints on a line of its own once it listens (bare-server.ts, edge-server.ts). */
export async function printedPort(server: ServiceProcess): Promise<number> {
  return eventually(
    async () => {
      const match = /^(\d+)$/m.exec(server.output());
      return match ? Number(match[1]) : undefined;
    },
    { what: `${server.name} port` },
  );
}
