import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { SqlClient, SqlExecutor } from '@vop/event-store';
import { eventually } from '@vop/testing';
import { dailySubject } from '../daily-subject.js';
import { SubjectKeyDestroyedError, SubjectKeyRaceError, TamperedValueError } from '../errors.js';
import { FieldCipher, isEncrypted } from '../field-cipher.js';
import { SubjectKeyStore, type SubjectKeyStoreOptions } from '../subject-key-store.js';

export interface PersonalDataSpecContext {
  client: () => SqlClient;
  /** Another connection to the same database, standing in for a second process. */
  otherClient: () => SqlClient;
}

/** true once the key reads as destroyed (undefined while it is still served); other errors are thrown. */
const destroyed = (key: Promise<Buffer>): Promise<true | undefined> =>
  key.then(
    () => undefined,
    (error: unknown) => {
      if (error instanceof SubjectKeyDestroyedError) return true;
      throw error;
    },
  );

export function personalDataSpec(context: PersonalDataSpecContext): void {
  async function freshStore(
    options: Partial<SubjectKeyStoreOptions> = {},
  ): Promise<SubjectKeyStore> {
    const store = new SubjectKeyStore(context.client(), {
      schema: `pd_${randomBytes(5).toString('hex')}`,
      ...options,
    });
    await store.migrate();
    return store;
  }

  function subject(): string {
    return `account-${randomBytes(6).toString('hex')}`;
  }

  describe('FieldCipher', () => {
    it('round-trips a value, including non-ASCII and empty strings', async () => {
      const cipher = new FieldCipher(await freshStore());
      const subjectId = subject();
      for (const plaintext of ['Jürgen Müller-Lüdenscheidt', '', 'Łódź 株式会社']) {
        const value = await cipher.encrypt(subjectId, plaintext);
        assert.equal(await cipher.decrypt(value), plaintext);
      }
    });

    it('writes pd1:<subjectId>:<iv>:<ciphertext>:<tag> without the plaintext in it', async () => {
      const cipher = new FieldCipher(await freshStore());
      const subjectId = subject();
      const plaintext = 'Erika Mustermann';
      const value = await cipher.encrypt(subjectId, plaintext);
      const parts = value.split(':');
      assert.equal(parts.length, 5);
      assert.equal(parts[0], 'pd1');
      assert.equal(parts[1], subjectId);
      for (const part of parts.slice(2)) assert.match(part, /^[A-Za-z0-9_-]*$/);
      assert.equal(Buffer.from(parts[2] ?? '', 'base64url').length, 12);
      assert.equal(Buffer.from(parts[4] ?? '', 'base64url').length, 16);
      assert.ok(!value.includes('Erika') && !value.includes('Mustermann'));
      assert.ok(
        !Buffer.from(parts[3] ?? '', 'base64url')
          .toString('latin1')
          .includes('Erika'),
      );
      assert.notEqual(
        await cipher.encrypt(subjectId, plaintext),
        value,
        'a fresh IV for every encryption',
      );
      assert.ok(isEncrypted(value) && cipher.isEncrypted(value));
      assert.ok(!isEncrypted(plaintext) && !isEncrypted('pd1:a:b') && !isEncrypted(42));
    });

    it('never uses an IV twice, across refills of the random bytes it cuts them from', async () => {
      const cipher = new FieldCipher(await freshStore());
      const subjectId = subject();
      // More values than one refill of the pool holds (512), the last ones after a refill.
      const values = await Promise.all(
        Array.from({ length: 1_500 }, () => cipher.encrypt(subjectId, 'Erika Mustermann')),
      );
      const ivs = new Set(values.map((value) => value.split(':')[2]));
      assert.equal(ivs.size, values.length);
      assert.deepEqual(
        new Set(await cipher.decryptMany(values)),
        new Set(['Erika Mustermann']),
        'every value still opens',
      );
    });

    it('refuses a tampered ciphertext, tag or IV and a value moved to another subject', async () => {
      const cipher = new FieldCipher(await freshStore());
      const subjectId = subject();
      const value = await cipher.encrypt(subjectId, 'Max Mustermann');
      const [prefix, id, iv, ciphertext, tag] = value.split(':') as [
        string,
        string,
        string,
        string,
        string,
      ];
      const flip = (part: string): string => {
        const bytes = Buffer.from(part, 'base64url');
        bytes[0] = (bytes[0] ?? 0) ^ 1;
        return bytes.toString('base64url');
      };
      for (const tampered of [
        [prefix, id, iv, flip(ciphertext), tag],
        [prefix, id, iv, ciphertext, flip(tag)],
        [prefix, id, flip(iv), ciphertext, tag],
      ]) {
        await assert.rejects(cipher.decrypt(tampered.join(':')), TamperedValueError);
      }
      const otherSubject = subject();
      await cipher.encrypt(otherSubject, 'someone else');
      await assert.rejects(
        cipher.decrypt([prefix, otherSubject, iv, ciphertext, tag].join(':')),
        TamperedValueError,
      );
      await assert.rejects(cipher.decrypt('pd1:broken'), TypeError);
      assert.equal(
        await cipher.decrypt('Max Mustermann'),
        'Max Mustermann',
        'a value written before encryption reads as it is',
      );
    });

    it("rejects subject ids containing ':' or empty", async () => {
      const cipher = new FieldCipher(await freshStore());
      await assert.rejects(cipher.encrypt('account:1', 'x'), TypeError);
      await assert.rejects(cipher.encrypt('', 'x'), TypeError);
    });

    it('after destroy, decrypt gives undefined and no new key can be minted', async () => {
      const store = await freshStore();
      const cipher = new FieldCipher(store);
      const subjectId = subject();
      const value = await cipher.encrypt(subjectId, 'Erika Mustermann');
      const kept = await cipher.encrypt(subject(), 'Hans Meier');
      await store.destroy(subjectId);
      await store.destroy(subjectId);
      assert.equal(await cipher.decrypt(value), undefined);
      assert.equal(await cipher.decrypt(kept), 'Hans Meier');
      await assert.rejects(store.keyFor(subjectId), SubjectKeyDestroyedError);
      await assert.rejects(cipher.encrypt(subjectId, 'Erika Mustermann'), SubjectKeyDestroyedError);

      // A fresh store (another process) sees the same from the database.
      const fresh = new SubjectKeyStore(context.otherClient(), { schema: store.schema });
      await assert.rejects(fresh.keyFor(subjectId), SubjectKeyDestroyedError);
      assert.equal(await new FieldCipher(fresh).decrypt(value), undefined);
    });

    it('a subject destroyed before it ever had a key never gets one', async () => {
      const store = await freshStore();
      const subjectId = subject();
      await store.destroy(subjectId);
      await assert.rejects(store.keyFor(subjectId), SubjectKeyDestroyedError);
    });

    it('a destroy inside a transaction that rolls back leaves the key', async () => {
      const store = await freshStore();
      const cipher = new FieldCipher(store);
      const subjectId = subject();
      const value = await cipher.encrypt(subjectId, 'Erika Mustermann');
      await assert.rejects(
        context.client().transaction(async (tx) => {
          await store.destroy(subjectId, tx);
          assert.equal(await cipher.decrypt(value, tx), undefined);
          throw new Error('roll back');
        }),
        /roll back/,
      );
      assert.equal(await cipher.decrypt(value), 'Erika Mustermann');
    });

    it('decryptMany decrypts values of several subjects in input order', async () => {
      const store = await freshStore();
      const cipher = new FieldCipher(store);
      const [a, b, c] = [subject(), subject(), subject()];
      const values = [
        await cipher.encrypt(a, 'A1'),
        await cipher.encrypt(b, 'B1'),
        await cipher.encrypt(a, 'A2'),
        await cipher.encrypt(c, 'C1'),
      ];
      await store.destroy(b);
      const fresh = new FieldCipher(
        new SubjectKeyStore(context.otherClient(), { schema: store.schema }),
      );
      assert.deepEqual(await fresh.decryptMany(values), ['A1', undefined, 'A2', 'C1']);
      assert.deepEqual(await fresh.decryptMany([]), []);
      assert.deepEqual(
        await fresh.decryptMany(['written before encryption', '', values[0] as string]),
        ['written before encryption', '', 'A1'],
      );
    });

    it('keepOpened keeps values opened while their keys are live; an erasure reaches them when heard of', async () => {
      const store = await freshStore();
      const cipher = new FieldCipher(store);
      const [erased, kept] = [subject(), subject()];
      const values = [await cipher.encrypt(erased, 'Erika'), await cipher.encrypt(kept, 'Hans')];
      const read = () => cipher.decryptMany(values, undefined, { keepOpened: true });
      assert.deepEqual(await read(), ['Erika', 'Hans']);
      assert.equal(cipher.keptOpened, 2);
      assert.deepEqual(await read(), ['Erika', 'Hans'], 'given back from what was kept');
      assert.equal(cipher.keptOpened, 2, 'kept once each');
      // Another process's erasure: the value kept opened reads as erased once the destroy is heard of.
      await new SubjectKeyStore(context.otherClient(), { schema: store.schema }).destroy(erased);
      await eventually(async () => ((await read())[0] === undefined ? true : undefined), {
        what: 'the erasure heard of',
      });
      assert.deepEqual(await read(), [undefined, 'Hans']);
      assert.equal(cipher.keptOpened, 1, "the erased holder's name is no longer kept");
    });

    it('keepOpened keeps at most its limit of values, and without it nothing is kept', async () => {
      const store = await freshStore();
      const cipher = new FieldCipher(store, 2);
      const subjectId = subject();
      const values = await Promise.all(
        ['A', 'B', 'C'].map((name) => cipher.encrypt(subjectId, name)),
      );
      assert.deepEqual(await cipher.decryptMany(values), ['A', 'B', 'C']);
      assert.equal(cipher.keptOpened, 0);
      assert.deepEqual(await cipher.decryptMany(values, undefined, { keepOpened: true }), [
        'A',
        'B',
        'C',
      ]);
      assert.equal(cipher.keptOpened, 2);
      // The evicted one is opened again; the limit still holds.
      assert.deepEqual(await cipher.decryptMany(values, undefined, { keepOpened: true }), [
        'A',
        'B',
        'C',
      ]);
      assert.equal(cipher.keptOpened, 2);
    });

    it('encryptFields/decryptFields handle strings and string arrays; shredded fields become undefined and []', async () => {
      const store = await freshStore();
      const cipher = new FieldCipher(store);
      const subjectId = subject();
      const account = {
        iban: 'DE89370400440532013000',
        name: 'Erika Mustermann',
        alternateNames: ['E. Mustermann', 'Erika M.'],
        nickname: undefined as string | undefined,
      };
      const encrypted = await cipher.encryptFields(
        account,
        ['name', 'alternateNames', 'nickname'],
        subjectId,
      );
      assert.equal(encrypted.iban, account.iban);
      assert.ok(isEncrypted(encrypted.name));
      assert.equal(encrypted.alternateNames.length, 2);
      assert.ok(encrypted.alternateNames.every((value) => isEncrypted(value)));
      assert.equal(encrypted.nickname, undefined);
      assert.ok(!JSON.stringify(encrypted).includes('Mustermann'));
      assert.equal(account.name, 'Erika Mustermann', 'the input object is left alone');

      const again = await cipher.encryptFields(encrypted, ['name'], subjectId);
      assert.equal(again.name, encrypted.name, 'an encrypted value is not encrypted twice');

      assert.deepEqual(
        await cipher.decryptFields(encrypted, ['name', 'alternateNames', 'nickname']),
        account,
      );

      await store.destroy(subjectId);
      const shredded = await cipher.decryptFields(encrypted, ['name', 'alternateNames']);
      assert.equal(shredded.name, undefined);
      assert.deepEqual(shredded.alternateNames, []);
      assert.equal(shredded.iban, account.iban);
      await assert.rejects(cipher.encryptFields({ name: 42 }, ['name'], subject()), TypeError);
    });
  });

  describe('SubjectKeyStore', () => {
    it('creates a 256-bit key on first use and returns the same key afterwards', async () => {
      const store = await freshStore();
      const subjectId = subject();
      const key = await store.keyFor(subjectId);
      assert.equal(key.length, 32);
      assert.deepEqual(await store.keyFor(subjectId), key);
      const fresh = new SubjectKeyStore(context.otherClient(), { schema: store.schema });
      assert.deepEqual(await fresh.keyFor(subjectId), key);
      assert.notDeepEqual(await store.keyFor(subject()), key);
    });

    it('keysFor fetches and creates many keys at once, the same ones keyFor sees; an erased subject refuses', async () => {
      const store = await freshStore();
      const known = subject();
      const knownKey = await store.keyFor(known);
      const fresh = [subject(), subject()];
      const keys = await store.keysFor([known, ...fresh, known]);
      assert.equal(keys.size, 3);
      assert.deepEqual(keys.get(known), knownKey);
      const other = new SubjectKeyStore(context.otherClient(), { schema: store.schema });
      for (const id of fresh) assert.deepEqual(await other.keyFor(id), keys.get(id));
      const erased = subject();
      await store.destroy(erased);
      await assert.rejects(store.keysFor([subject(), erased]), SubjectKeyDestroyedError);
    });

    it('given holders with keys, when keysFor runs in a transaction, then only the missing key is created', async () => {
      const store = await freshStore();
      const [a, b, c] = [subject(), subject(), subject()];
      const held = await store.keysFor([a, b]);
      // Another process: nothing cached, so every key is read from the table.
      const other = new SubjectKeyStore(context.otherClient(), { schema: store.schema });
      const created: unknown[] = [];
      const keys = await context.otherClient().transaction((tx) => {
        const watched: SqlExecutor = {
          query: <R>(text: string, params?: readonly unknown[]) => {
            if (text.includes('INSERT')) created.push(params?.[0]);
            return tx.query<R>(text, params);
          },
        };
        return other.keysFor([a, b, c], watched);
      });
      assert.deepEqual(created, [[c]]);
      assert.deepEqual(keys.get(a), held.get(a));
      assert.deepEqual(keys.get(b), held.get(b));
      assert.equal(keys.get(c)?.length, 32);
    });

    it('given subjects said to be made just now, then keysFor creates their keys without looking for them first, yet one that has a key keeps it and an erased one refuses', async () => {
      const store = await freshStore();
      const [held, erased, made] = [subject(), subject(), subject()];
      const heldKey = await store.keyFor(held);
      await store.keyFor(erased);
      await store.destroy(erased);
      // Another process, so nothing is cached; its statements are recorded.
      const other = new SubjectKeyStore(context.otherClient(), { schema: store.schema });
      const statements: { text: string; subjects: unknown }[] = [];
      const keys = await context.otherClient().transaction((tx) => {
        const watched: SqlExecutor = {
          query: <R>(text: string, params?: readonly unknown[]) => {
            statements.push({
              text: text.includes('INSERT') ? 'INSERT' : (text.trim().split(/\s+/)[0] as string),
              subjects: params?.[0],
            });
            return tx.query<R>(text, params);
          },
        };
        return other.keysFor([made, held], watched, { made: new Set([made, held]) });
      });
      // Looked for nothing first; the key that existed after all was read once the insert missed it.
      assert.deepEqual(statements, [
        { text: 'INSERT', subjects: [made, held] },
        { text: 'SELECT', subjects: [held] },
      ]);
      assert.deepEqual(keys.get(held), heldKey);
      assert.deepEqual(await store.keyFor(made), keys.get(made));
      await assert.rejects(
        other.keysFor([subject(), erased], undefined, { made: new Set([erased]) }),
        SubjectKeyDestroyedError,
      );
    });

    it('given subjects made just now, when their keys are asked for ahead, then their keys are there before they are stored, and stored is what was handed out', async () => {
      const store = await freshStore();
      const [held, made] = [subject(), subject()];
      const heldKey = await store.keyFor(held);
      const other = new SubjectKeyStore(context.otherClient(), { schema: store.schema });
      // The insert is held until the keys were handed out (or, should they wait for it, for a while).
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const fallback = setTimeout(() => release(), 2_000);
      let insertAnswered = false;
      const watched: SqlExecutor = {
        query: async <R>(text: string, params?: readonly unknown[]) => {
          if (text.includes('INSERT')) await released;
          const result = await context.otherClient().query<R>(text, params);
          if (text.includes('INSERT')) insertAnswered = true;
          return result;
        },
      };
      const { keys, stored } = await other.keysAhead([held, made], watched, {
        made: new Set([made]),
      });
      // Handed out before the insert of the made key was answered.
      assert.equal(insertAnswered, false);
      release();
      clearTimeout(fallback);
      assert.deepEqual(keys.get(held), heldKey);
      const madeKey = keys.get(made);
      assert.equal(madeKey?.length, 32);
      await stored;
      assert.equal(insertAnswered, true);
      assert.deepEqual(await store.keyFor(made), madeKey);
    });

    it('given a subject said to be made that had a key after all, when its key is asked for ahead, then stored refuses and the key it had stays', async () => {
      const store = await freshStore();
      const [raced, made] = [subject(), subject()];
      const racedKey = await store.keyFor(raced);
      const other = new SubjectKeyStore(context.otherClient(), { schema: store.schema });
      const { keys, stored } = await other.keysAhead([raced, made], undefined, {
        made: new Set([raced, made]),
      });
      // A fresh key was handed out for it; nothing sealed with it may be written.
      assert.notDeepEqual(keys.get(raced), racedKey);
      await assert.rejects(stored, SubjectKeyRaceError);
      assert.deepEqual(await store.keyFor(raced), racedKey);
      assert.deepEqual(await other.keyFor(raced), racedKey);
      // The same through a sealer, in a process that has not read the key yet.
      const cipher = new FieldCipher(
        new SubjectKeyStore(context.otherClient(), { schema: store.schema }),
      );
      const racing = await cipher.sealerAhead([raced], undefined, { made: new Set([raced]) });
      await assert.rejects(racing.keysStored, SubjectKeyRaceError);
    });

    it('given keys read for a bulk write without remembering them, then the next read reads them again', async () => {
      const store = await freshStore();
      const [a, b] = [subject(), subject()];
      const made = await store.keysFor([a, b]);
      let reads = 0;
      const sql = context.otherClient();
      // Another process whose reads of the key table are counted.
      const counted = new Proxy(sql, {
        get(target, property) {
          const value: unknown = Reflect.get(target, property);
          if (property === 'query')
            return (text: string, params?: readonly unknown[]) => {
              if (/^\s*SELECT subject_id, key FROM/.test(text)) reads += 1;
              return target.query(text, params);
            };
          return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
        },
      });
      const other = new SubjectKeyStore(counted, { schema: store.schema });
      assert.deepEqual(await other.keysFor([a, b], undefined, { remember: false }), made);
      assert.equal(reads, 1);
      await other.keysFor([a, b]);
      assert.equal(reads, 2, 'not remembered: read again');
      await other.keysFor([a, b]);
      assert.equal(reads, 2, 'remembered by the read before');
    });

    it('a sealer encrypts with the fetched keys and digests per subject', async () => {
      const store = await freshStore();
      const cipher = new FieldCipher(store);
      const [a, b] = [subject(), subject()];
      const sealer = await cipher.sealerFor([a, b]);
      const sealed = sealer.encryptFields(
        { name: 'Erika', other: 'x', names: ['Hans'] },
        ['name', 'names'],
        a,
      );
      assert.equal(sealed.other, 'x');
      assert.equal(await cipher.decrypt(sealed.name), 'Erika');
      assert.deepEqual(await cipher.decryptMany(sealed.names), ['Hans']);
      assert.equal(sealer.digest(a, 'text'), sealer.digest(a, 'text'));
      assert.notEqual(sealer.digest(a, 'text'), sealer.digest(b, 'text'));
    });

    it("a digester digests under its subject's key, as the sealer does; an erased subject has none", async () => {
      const store = await freshStore();
      const cipher = new FieldCipher(store);
      const [a, b] = [subject(), subject()];
      const digest = await cipher.digesterFor(a);
      const sealer = await cipher.sealerFor([a, b]);
      assert.equal(digest('text'), sealer.digest(a, 'text'));
      assert.notEqual(digest('text'), sealer.digest(b, 'text'));
      assert.notEqual(digest('text'), digest('other text'));
      await store.destroy(a);
      await assert.rejects(cipher.digesterFor(a), SubjectKeyDestroyedError);
    });

    it('given more erased subjects than it remembers, when they are asked for, then each is still refused', async () => {
      const store = await freshStore({ maxRememberedDestroyed: 2 });
      const erased = [subject(), subject(), subject()];
      for (const subjectId of erased) await store.destroy(subjectId);
      assert.equal(store.rememberedDestroyed, 2);
      for (const subjectId of erased) {
        await assert.rejects(store.keyFor(subjectId), SubjectKeyDestroyedError);
        assert.deepEqual(
          await store.lookup([subjectId]),
          new Map([[subjectId, { state: 'destroyed' }]]),
        );
      }
      assert.equal(store.rememberedDestroyed, 2);
    });

    it('migrate is idempotent', async () => {
      const store = await freshStore();
      await store.migrate();
      await store.keyFor(subject());
    });

    it('two concurrent keyFor calls for a new subject agree on one key', async () => {
      const store = await freshStore();
      const other = new SubjectKeyStore(context.otherClient(), { schema: store.schema });
      for (let round = 0; round < 10; round++) {
        const subjectId = subject();
        const [first, second, third] = await Promise.all([
          store.keyFor(subjectId),
          other.keyFor(subjectId),
          store.keyFor(subjectId),
        ]);
        assert.deepEqual(first, second);
        assert.deepEqual(first, third);
      }
    });

    it('a key created inside a rolled-back transaction is not kept', async () => {
      const store = await freshStore();
      const cipher = new FieldCipher(store);
      const subjectId = subject();
      let keyInTransaction: Buffer | undefined;
      await assert.rejects(
        context.client().transaction(async (tx) => {
          keyInTransaction = await store.keyFor(subjectId, tx);
          throw new Error('roll back');
        }),
        /roll back/,
      );
      const committedKey = await store.keyFor(subjectId);
      assert.ok(keyInTransaction !== undefined);
      assert.notDeepEqual(committedKey, keyInTransaction);
      const value = await cipher.encrypt(subjectId, 'Erika Mustermann');
      assert.equal(
        await new FieldCipher(
          new SubjectKeyStore(context.otherClient(), { schema: store.schema }),
        ).decrypt(value),
        'Erika Mustermann',
      );
    });

    it("another process's destroy is honoured as soon as it commits, long before the cache would expire", async () => {
      // The clock stands still: only the destroy's notification can make the cached key go.
      const now = 1_000_000;
      const store = await freshStore({ now: () => now });
      const subjectId = subject();
      await store.keyFor(subjectId);
      const daily = dailySubject('other-', new Date('2026-11-20T12:00:00Z'));
      await store.keyFor(daily);
      const other = new SubjectKeyStore(context.otherClient(), { schema: store.schema });
      await other.destroy(subjectId);
      await eventually(() => destroyed(store.keyFor(subjectId)), { what: 'the destroy heard of' });
      // Retention's destroys are heard of too.
      await other.destroyOlderThan('other-', new Date('2026-11-21T00:00:00Z'));
      await eventually(() => destroyed(store.keyFor(daily)), {
        what: "retention's destroy heard of",
      });
    });

    it("when it cannot listen, another process's destroy is honoured once the cache TTL has passed", async () => {
      let now = 1_000_000;
      const deaf: SqlClient = {
        ...context.client(),
        listen: () => Promise.reject(new Error('LISTEN is not available')),
      };
      const store = new SubjectKeyStore(deaf, {
        schema: (await freshStore()).schema,
        cacheTtlMs: 5000,
        now: () => now,
      });
      const subjectId = subject();
      const key = await store.keyFor(subjectId);
      await new SubjectKeyStore(context.otherClient(), { schema: store.schema }).destroy(subjectId);
      assert.deepEqual(await store.keyFor(subjectId), key, 'still cached within the TTL');
      now += 5000;
      await assert.rejects(store.keyFor(subjectId), SubjectKeyDestroyedError);
    });

    it('destroyOlderThan destroys only the daily subjects of whole days before the date', async () => {
      const store = await freshStore();
      const cipher = new FieldCipher(store);
      const days = ['2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21'];
      const values = new Map<string, string>();
      for (const day of days) {
        values.set(
          `typed-${day}`,
          await cipher.encrypt(
            dailySubject('typed-', new Date(`${day}T12:00:00Z`)),
            `payee ${day}`,
          ),
        );
      }
      const unrelated = [
        await cipher.encrypt('other-2026-11-01', 'other prefix'),
        await cipher.encrypt('typed-archive', 'no date'),
      ];
      await store.destroy('typed-2026-11-17');

      const destroyed = await store.destroyOlderThan('typed-', new Date('2026-11-20T08:00:00Z'));
      assert.deepEqual(destroyed, ['typed-2026-11-18', 'typed-2026-11-19']);
      const fresh = new FieldCipher(
        new SubjectKeyStore(context.otherClient(), { schema: store.schema }),
      );
      for (const cipherUnderTest of [cipher, fresh]) {
        assert.deepEqual(await cipherUnderTest.decryptMany([...values.values()]), [
          undefined,
          undefined,
          'payee 2026-11-20',
          'payee 2026-11-21',
        ]);
        assert.deepEqual(await cipherUnderTest.decryptMany(unrelated), ['other prefix', 'no date']);
      }
      await assert.rejects(store.keyFor('typed-2026-11-19'), SubjectKeyDestroyedError);
      assert.deepEqual(
        await store.destroyOlderThan('typed-', new Date('2026-11-20T08:00:00Z')),
        [],
      );
    });
  });

  describe('dailySubject', () => {
    it('names the UTC day', () => {
      assert.equal(dailySubject('typed-', new Date('2026-11-21T23:59:59Z')), 'typed-2026-11-21');
      assert.equal(
        dailySubject('typed-', new Date('2026-11-22T00:30:00+02:00')),
        'typed-2026-11-21',
      );
      assert.throws(() => dailySubject('typed:', new Date()), TypeError);
    });
  });
}
