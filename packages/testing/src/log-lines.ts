import { Writable } from 'node:stream';

/** A logger's output read back: give `destination` to `createLogger`, read each line parsed in `lines`. */
export function logLines(): { lines: Array<Record<string, unknown>>; destination: Writable } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return { lines, destination };
}
