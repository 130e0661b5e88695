import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { SchemeMember } from '@vop/embedded';
import { httpsClient } from '@vop/testing';

/** The words of a command as a POSIX shell splits them (single quotes and backslashes; no expansion). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let index = 0; index < command.length; index += 1) {
    const char = command[index] as string;
    if (char === "'") {
      const end = command.indexOf("'", index + 1);
      if (end < 0) throw new Error(`unclosed quote in: ${command}`);
      word = (word ?? '') + command.slice(index + 1, end);
      index = end;
    } else if (char === '\\') {
      word = (word ?? '') + (command[index + 1] ?? '');
      index += 1;
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + char;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The command of the one line of the banner that begins `try: `. */
export function tryCommandOf(banner: string): string {
  const lines = banner.split('\n').filter((line) => line.startsWith('try: '));
  if (lines.length !== 1) throw new Error(`expected one "try: " line, found ${lines.length}`);
  return (lines[0] as string).slice('try: '.length);
}

async function curlInstalled(): Promise<boolean> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter))
    if (
      await access(path.join(dir, 'curl')).then(
        () => true,
        () => false,
      )
    )
      return true;
  return false;
}

/**
 * Runs a `curl --cacert … --cert … --key … -H … -d … <url>` command: with curl where it is
 * installed, else the same request with node's https. Answers the parsed JSON body.
 */
export async function runCurlCommand(command: string): Promise<unknown> {
  const words = shellWords(command);
  if (words[0] !== 'curl') throw new Error(`not a curl command: ${command}`);
  if (await curlInstalled()) {
    const { stdout } = await promisify(execFile)('curl', ['-sS', ...words.slice(1)]);
    return JSON.parse(stdout);
  }
  const option = (name: string): string[] =>
    words.flatMap((word, index) => (word === name ? [words[index + 1] as string] : []));
  const only = (name: string): string => {
    const [value, ...more] = option(name);
    if (value === undefined || more.length > 0) throw new Error(`expected one ${name}: ${command}`);
    return value;
  };
  const url = new URL(words[words.length - 1] as string);
  const client = httpsClient({
    baseUrl: url.origin,
    caPem: await readFile(only('--cacert'), 'utf8'),
    certPem: await readFile(only('--cert'), 'utf8'),
    keyPem: await readFile(only('--key'), 'utf8'),
  });
  try {
    const headers = Object.fromEntries(
      option('-H').map((header) => {
        const colon = header.indexOf(':');
        return [header.slice(0, colon).trim(), header.slice(colon + 1).trim()];
      }),
    );
    const answer = await client.request('POST', url.pathname, { rawBody: only('-d'), headers });
    return answer.body;
  } finally {
    client.close();
  }
}

/** An IBAN as /admin/verifications shows it: country, check digits and the last four. */
export function maskedIban(iban: string): string {
  return `${iban.slice(0, 4)}${'*'.repeat(iban.length - 8)}${iban.slice(-4)}`;
}

/** The results a bank recorded for checks of this IBAN (its /admin/verifications, as its admin). */
export async function recordedResults(member: SchemeMember, iban: string): Promise<string[]> {
  const admin = httpsClient({ baseUrl: member.url, ...member.admin });
  try {
    const answer = await admin.get<{ verifications: { iban: string; result: string }[] }>(
      '/admin/verifications?limit=500',
    );
    if (answer.status !== 200)
      throw new Error(`${member.bank.name}: /admin/verifications answered ${answer.status}`);
    return answer.body.verifications
      .filter((verification) => verification.iban === maskedIban(iban))
      .map((verification) => verification.result);
  } finally {
    admin.close();
  }
}
