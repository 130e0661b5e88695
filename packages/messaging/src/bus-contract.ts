/**
 * The behaviour every Bus must have, as one node:test suite run against each adapter
 * (in-process-bus.test.ts, kafka-bus.test.ts). Not a test file itself: it only defines the suite.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { partitionFor } from './partitioner.js';
import type {
  Bus,
  IncomingMessage,
  OutgoingMessage,
  SubscribeOptions,
  Subscription,
} from './types.js';

export interface BusContractOptions {
  /** How long to wait for deliveries before a test fails (Kafka needs longer than memory). */
  waitTimeoutMs: number;
}

export function busContract(name: string, makeBus: () => Bus, options: BusContractOptions): void {
  describe(`Bus contract: ${name}`, () => {
    const runId = randomBytes(4).toString('hex');
    let counter = 0;
    const unique = (prefix: string): string => `contract.${prefix}.${runId}.${++counter}`;
    let bus: Bus;
    const openSubscriptions: Subscription[] = [];

    const subscribe = async (subscribeOptions: SubscribeOptions): Promise<Subscription> => {
      const subscription = await bus.subscribe(subscribeOptions);
      openSubscriptions.push(subscription);
      return subscription;
    };
    const waitFor = (condition: () => boolean, what: string): Promise<void> =>
      waitUntil(condition, what, options.waitTimeoutMs);

    before(() => {
      bus = makeBus();
    });

    after(async () => {
      await Promise.allSettled(openSubscriptions.map((subscription) => subscription.close()));
      await bus.close();
    });

    it('delivers published messages with their topic, key, value and the key-derived partition', async () => {
      const topic = unique('basic');
      await bus.ensureTopics([{ name: topic, partitions: 4 }]);
      await bus.ensureTopics([{ name: topic, partitions: 4 }]); // idempotent
      const received = new Recorder();
      await subscribe({ groupId: unique('group'), topics: [topic], handler: received.handler });

      const sent = ['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((key) => ({
        key,
        value: `value of ${key}`,
      }));
      await bus.publish(topic, sent);
      await waitFor(() => received.messages.length >= sent.length, 'all messages');

      assert.equal(received.messages.length, sent.length);
      for (const { key, value } of sent) {
        const message = received.messages.find((candidate) => candidate.key === key);
        assert.ok(message, `message with key ${key} arrived`);
        assert.equal(message.topic, topic);
        assert.equal(message.value, value);
        assert.equal(message.partition, partitionFor(key, 4));
        assert.match(message.offset, /^\d+$/);
      }
    });

    it("reports a group's consumer lag: everything before it handles, nothing after", async () => {
      const topic = unique('lag');
      await bus.ensureTopics([{ name: topic, partitions: 2 }]);
      const groupId = unique('group');
      await bus.publish(topic, [
        { key: 'a', value: '1' },
        { key: 'b', value: '2' },
        { key: 'c', value: '3' },
      ]);
      const consumerLag = (group: string, topics: string[]) => {
        assert.ok(bus.consumerLag, 'both adapters report consumer lag');
        return bus.consumerLag(group, topics);
      };
      assert.equal(await consumerLag(groupId, [topic]), 3, 'a group that never read');
      const received = new Recorder();
      await subscribe({ groupId, topics: [topic], fromBeginning: true, handler: received.handler });
      await waitFor(() => received.messages.length >= 3, 'the three messages');
      const start = Date.now();
      let lag = await consumerLag(groupId, [topic]);
      // The offsets are committed just after the handler resolves.
      while (lag !== 0 && Date.now() - start < options.waitTimeoutMs) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        lag = await consumerLag(groupId, [topic]);
      }
      assert.equal(lag, 0);
    });

    it('round-trips headers as strings, including non-ASCII values and messages without headers', async () => {
      const topic = unique('headers');
      await bus.ensureTopics([{ name: topic, partitions: 2 }]);
      const received = new Recorder();
      await subscribe({ groupId: unique('group'), topics: [topic], handler: received.handler });

      const headers = { 'event-id': 'evt-123', traceparent: '00-abc-def-01', note: 'Müller ✓' };
      await bus.publish(topic, [
        { key: 'k', value: 'with', headers },
        { key: 'k', value: 'without' },
      ]);
      await waitFor(() => received.messages.length >= 2, 'both messages');

      assert.deepEqual({ ...received.byValue('with').headers }, headers);
      assert.deepEqual({ ...received.byValue('without').headers }, {});
    });

    it('delivers headers named as members of every object (toString, constructor, __proto__) as they were sent', async () => {
      const topic = unique('member-headers');
      await bus.ensureTopics([{ name: topic, partitions: 1 }]);
      const received = new Recorder();
      await subscribe({ groupId: unique('group'), topics: [topic], handler: received.handler });

      // A producer outside the bank (the core-banking feed) chooses its header names.
      const headers: Record<string, string> = { toString: 'a', constructor: 'b', 'event-id': 'c' };
      Object.defineProperty(headers, '__proto__', {
        value: 'd',
        writable: true,
        enumerable: true,
        configurable: true,
      });
      await bus.publish(topic, [{ key: 'k', value: 'members', headers }]);
      await waitFor(() => received.messages.length >= 1, 'the message');

      const delivered = received.byValue('members').headers;
      assert.equal(Object.getPrototypeOf(delivered), Object.prototype);
      assert.deepEqual(
        Object.entries(delivered).sort(([a], [b]) => a.localeCompare(b)),
        [
          ['__proto__', 'd'],
          ['constructor', 'b'],
          ['event-id', 'c'],
          ['toString', 'a'],
        ],
      );
    });

    it('keeps the order of messages with the same key across many keys', async () => {
      const topic = unique('order');
      await bus.ensureTopics([{ name: topic, partitions: 8 }]);
      const seenByKey = new Map<string, number[]>();
      let total = 0;
      await subscribe({
        groupId: unique('group'),
        topics: [topic],
        partitionsConsumedConcurrently: 4,
        handler: async (message) => {
          const sequence = seenByKey.get(message.key) ?? [];
          sequence.push(Number(message.value));
          seenByKey.set(message.key, sequence);
          total++;
        },
      });

      const keys = Array.from({ length: 50 }, (_, index) => `key-${index}`);
      const perKey = 20;
      // Several publish calls, each interleaving all keys, so order within a key spans requests.
      for (let round = 0; round < perKey; round += 5) {
        const batch: OutgoingMessage[] = [];
        for (let step = round; step < round + 5; step++) {
          for (const key of keys) batch.push({ key, value: String(step) });
        }
        await bus.publish(topic, batch);
      }
      await waitFor(() => total >= keys.length * perKey, 'every message');

      const expected = Array.from({ length: perKey }, (_, step) => step);
      for (const key of keys) assert.deepEqual(seenByKey.get(key), expected, `order of ${key}`);
    });

    it('gives every consumer group its own copy of every message', async () => {
      const topic = unique('groups');
      await bus.ensureTopics([{ name: topic, partitions: 4 }]);
      const first = new Recorder();
      const second = new Recorder();
      await subscribe({ groupId: unique('group-a'), topics: [topic], handler: first.handler });
      await subscribe({ groupId: unique('group-b'), topics: [topic], handler: second.handler });

      const sent = numberedMessages(40);
      await bus.publish(topic, sent);
      await waitFor(
        () => first.distinctValues().size >= 40 && second.distinctValues().size >= 40,
        'both groups',
      );

      const all = new Set(sent.map((message) => message.value));
      assert.deepEqual(first.distinctValues(), all);
      assert.deepEqual(second.distinctValues(), all);
    });

    it('splits the partitions between the consumers of one group and hands them over when one leaves', async () => {
      const topic = unique('split');
      const groupId = unique('group');
      await bus.ensureTopics([{ name: topic, partitions: 8 }]);
      const first = new Recorder();
      const second = new Recorder();
      await subscribe({ groupId, topics: [topic], handler: first.handler });
      const secondSubscription = await subscribe({
        groupId,
        topics: [topic],
        handler: second.handler,
      });

      const sent = numberedMessages(200);
      await bus.publish(topic, sent);
      const everyValue = (): Set<string> =>
        new Set([...first.distinctValues(), ...second.distinctValues()]);
      await waitFor(() => everyValue().size >= sent.length, 'every message in the group');

      assert.deepEqual(everyValue(), new Set(sent.map((message) => message.value)));
      assert.ok(
        first.messages.length > 0 && second.messages.length > 0,
        'both consumers got a share',
      );
      // Nothing rebalanced while these were handled, so nothing may be handled twice.
      assert.equal(first.messages.length + second.messages.length, sent.length);
      const firstPartitions = new Set(first.messages.map((message) => message.partition));
      for (const message of second.messages) {
        assert.ok(
          !firstPartitions.has(message.partition),
          `partition ${message.partition} read by one consumer only`,
        );
      }

      await secondSubscription.close();
      const later = numberedMessages(40, 'later');
      await bus.publish(topic, later);
      await waitFor(
        () => later.every((message) => first.distinctValues().has(message.value)),
        'handover to the first',
      );
      assert.ok(
        !later.some((message) => second.distinctValues().has(message.value)),
        'a closed consumer gets nothing',
      );
    });

    it('tells a consumer whether it holds every partition: alone yes, beside a second member no, yes again when that one leaves', async () => {
      const topic = unique('holds');
      const groupId = unique('group');
      await bus.ensureTopics([{ name: topic, partitions: 4 }]);
      const firstTold: boolean[] = [];
      const secondTold: boolean[] = [];
      const ignore = async (): Promise<void> => undefined;
      await subscribe({
        groupId,
        topics: [topic],
        handler: ignore,
        onHoldsEveryPartition: (holds) => firstTold.push(holds),
      });
      await waitFor(
        () => firstTold.at(-1) === true,
        'the only member told it holds every partition',
      );

      const second = await subscribe({
        groupId,
        topics: [topic],
        handler: ignore,
        onHoldsEveryPartition: (holds) => secondTold.push(holds),
      });
      await waitFor(
        () => firstTold.at(-1) === false,
        'the first told it no longer holds every one',
      );
      assert.notEqual(secondTold.at(-1), true, 'the second holds only a share');

      await second.close();
      assert.equal(secondTold.at(-1) ?? false, false, 'a closed consumer holds nothing');
      await waitFor(() => firstTold.at(-1) === true, 'the first holds every partition again');
      // Only changes are told: never the same answer twice in a row.
      for (let index = 1; index < firstTold.length; index++)
        assert.notEqual(firstTold[index], firstTold[index - 1]);
    });

    it('delivers a message again after its handler failed, and holds back the rest of its partition', async () => {
      const topic = unique('redelivery');
      await bus.ensureTopics([{ name: topic, partitions: 1 }]);
      const attempts: string[] = [];
      const reported: Array<{ value: string; attempt: number }> = [];
      let failuresLeft = 2;
      await subscribe({
        groupId: unique('group'),
        topics: [topic],
        handler: async (message) => {
          attempts.push(message.value);
          if (message.value === 'm2' && failuresLeft > 0) {
            failuresLeft--;
            throw new Error('handler failed on purpose');
          }
        },
        onHandlerError: (_error, message, attempt) =>
          reported.push({ value: message.value, attempt }),
      });

      await bus.publish(
        topic,
        ['m1', 'm2', 'm3', 'm4'].map((value) => ({ key: 'one-key', value })),
      );
      await waitFor(() => attempts.includes('m4'), 'the last message');

      assert.deepEqual(attempts, ['m1', 'm2', 'm2', 'm2', 'm3', 'm4']);
      assert.deepEqual(reported, [
        { value: 'm2', attempt: 1 },
        { value: 'm2', attempt: 2 },
      ]);
    });

    it('commits only handled messages: a new consumer of the group resumes at the failed one', async () => {
      const topic = unique('handoff');
      const groupId = unique('group');
      await bus.ensureTopics([{ name: topic, partitions: 1 }]);
      const firstAttempts: string[] = [];
      const first = await subscribe({
        groupId,
        topics: [topic],
        handler: async (message) => {
          firstAttempts.push(message.value);
          if (message.value === 'm3') throw new Error('cannot handle m3 yet');
        },
      });
      await bus.publish(
        topic,
        ['m1', 'm2', 'm3', 'm4', 'm5'].map((value) => ({ key: 'one-key', value })),
      );
      await waitFor(
        () => firstAttempts.filter((value) => value === 'm3').length >= 2,
        'm3 to fail twice',
      );
      await first.close();
      assert.ok(!firstAttempts.includes('m4'), 'm4 waited behind the failing m3');

      const successor = new Recorder();
      await subscribe({ groupId, topics: [topic], handler: successor.handler });
      await waitFor(() => successor.distinctValues().has('m5'), 'the successor to reach m5');

      assert.deepEqual(
        successor.messages.map((message) => message.value),
        ['m3', 'm4', 'm5'],
      );
    });

    it('keeps the progress of a consumer that closed: its successor gets only what came after', async () => {
      const topic = unique('progress');
      const groupId = unique('group');
      await bus.ensureTopics([{ name: topic, partitions: 4 }]);
      const first = new Recorder();
      const firstSubscription = await subscribe({
        groupId,
        topics: [topic],
        handler: first.handler,
      });
      const before = numberedMessages(20, 'before');
      await bus.publish(topic, before);
      await waitFor(
        () => first.distinctValues().size >= before.length,
        'the first consumer to handle everything',
      );
      await firstSubscription.close();

      const after = numberedMessages(10, 'after');
      await bus.publish(topic, after);
      const successor = new Recorder();
      await subscribe({ groupId, topics: [topic], handler: successor.handler });
      await waitFor(
        () => successor.distinctValues().size >= after.length,
        'the successor to handle the new messages',
      );

      assert.deepEqual(successor.distinctValues(), new Set(after.map((message) => message.value)));
      assert.equal(successor.messages.length, after.length);
    });

    it('starts a new group at the end when fromBeginning is false', async () => {
      const topic = unique('from-end');
      await bus.ensureTopics([{ name: topic, partitions: 2 }]);
      await bus.publish(topic, [
        { key: 'same-key', value: 'old-1' },
        { key: 'same-key', value: 'old-2' },
      ]);
      const received = new Recorder();
      await subscribe({
        groupId: unique('group'),
        topics: [topic],
        fromBeginning: false,
        handler: received.handler,
      });
      await bus.publish(topic, [{ key: 'same-key', value: 'new-1' }]);
      // Same key, same partition: an old message would have arrived before the new one.
      await waitFor(() => received.distinctValues().has('new-1'), 'the new message');

      assert.deepEqual(
        received.messages.map((message) => message.value),
        ['new-1'],
      );
    });

    it('starts at the end with startAtEnd even where the group committed before', async () => {
      const topic = unique('start-at-end');
      const groupId = unique('group');
      await bus.ensureTopics([{ name: topic, partitions: 2 }]);
      const earlier = new Recorder();
      const first = await subscribe({ groupId, topics: [topic], handler: earlier.handler });
      await bus.publish(topic, [{ key: 'same-key', value: 'handled' }]);
      await waitFor(() => earlier.distinctValues().has('handled'), 'the first message');
      await first.close();
      await bus.publish(topic, [{ key: 'same-key', value: 'while-away' }]);

      const received = new Recorder();
      await subscribe({ groupId, topics: [topic], startAtEnd: true, handler: received.handler });
      await bus.publish(topic, [{ key: 'same-key', value: 'after' }]);
      // Same key, same partition: the message published while away would have come first.
      await waitFor(() => received.distinctValues().has('after'), 'the message after subscribing');
      assert.deepEqual(
        received.messages.map((message) => message.value),
        ['after'],
      );
    });

    it('starts a new group at the beginning by default', async () => {
      const topic = unique('from-start');
      await bus.ensureTopics([{ name: topic, partitions: 2 }]);
      await bus.publish(topic, [
        { key: 'same-key', value: 'old-1' },
        { key: 'same-key', value: 'old-2' },
      ]);
      const received = new Recorder();
      await subscribe({ groupId: unique('group'), topics: [topic], handler: received.handler });
      await waitFor(() => received.messages.length >= 2, 'the old messages');

      assert.deepEqual(
        received.messages.map((message) => message.value),
        ['old-1', 'old-2'],
      );
    });

    it('hands a batch handler every message once, in per-key order, in consecutive batches of one partition', async () => {
      const topic = unique('batch-order');
      await bus.ensureTopics([{ name: topic, partitions: 8 }]);
      const received = new BatchRecorder();
      await subscribe({
        groupId: unique('group'),
        topics: [topic],
        partitionsConsumedConcurrently: 4,
        batchHandler: received.batchHandler,
      });

      const keys = Array.from({ length: 50 }, (_, index) => `key-${index}`);
      const perKey = 20;
      for (let round = 0; round < perKey; round += 5) {
        const batch: OutgoingMessage[] = [];
        for (let step = round; step < round + 5; step++) {
          for (const key of keys) batch.push({ key, value: String(step) });
        }
        await bus.publish(topic, batch);
      }
      await waitFor(() => received.messages().length >= keys.length * perKey, 'every message');

      const expected = Array.from({ length: perKey }, (_, step) => String(step));
      for (const key of keys) {
        assert.deepEqual(
          received
            .messages()
            .filter((message) => message.key === key)
            .map((message) => message.value),
          expected,
          `order of ${key}`,
        );
      }
      // Each batch picks up right after the previous one of its partition: nothing skipped, nothing repeated.
      const nextOffsetByPartition = new Map<number, number>();
      for (const batch of received.batches) {
        assertWellFormedBatch(batch, topic, 500);
        const first = Number(batch[0]!.offset);
        assert.equal(
          first,
          nextOffsetByPartition.get(batch[0]!.partition) ?? 0,
          'batch starts after the previous one',
        );
        nextOffsetByPartition.set(batch[0]!.partition, first + batch.length);
      }
    });

    it('never mixes partitions in a batch and never exceeds maxBatchSize', async () => {
      const topic = unique('batch-size');
      await bus.ensureTopics([{ name: topic, partitions: 3 }]);
      const sent = numberedMessages(300);
      // Published before subscribing, so a backlog is waiting and batches can fill up.
      await bus.publish(topic, sent);
      const received = new BatchRecorder();
      await subscribe({
        groupId: unique('group'),
        topics: [topic],
        batchHandler: received.batchHandler,
        maxBatchSize: 7,
      });
      await waitFor(() => received.messages().length >= sent.length, 'every message');

      assert.equal(received.messages().length, sent.length);
      assert.deepEqual(received.distinctValues(), new Set(sent.map((message) => message.value)));
      for (const batch of received.batches) assertWellFormedBatch(batch, topic, 7);
      assert.ok(
        received.batches.some((batch) => batch.length === 7),
        'a waiting backlog is handed over in full batches',
      );
    });

    it('caps batches at 500 messages by default', async () => {
      const topic = unique('batch-default');
      await bus.ensureTopics([{ name: topic, partitions: 1 }]);
      const sent = numberedMessages(1_200);
      await bus.publish(topic, sent);
      const received = new BatchRecorder();
      await subscribe({
        groupId: unique('group'),
        topics: [topic],
        batchHandler: received.batchHandler,
      });
      await waitFor(() => received.messages().length >= sent.length, 'every message');

      for (const batch of received.batches) assertWellFormedBatch(batch, topic, 500);
      assert.equal(Math.max(...received.batches.map((batch) => batch.length)), 500);
      assert.deepEqual(
        received.messages().map((message) => message.value),
        sent.map((message) => message.value),
      );
    });

    it('delivers a failed batch again as it was, and nothing later of its partition before it succeeds', async () => {
      const topic = unique('batch-redelivery');
      await bus.ensureTopics([{ name: topic, partitions: 1 }]);
      const calls: Array<{ offsets: string[]; values: string[]; failed: boolean }> = [];
      const reported: Array<{ offset: string; attempt: number }> = [];
      let failuresLeft = 2;
      await subscribe({
        groupId: unique('group'),
        topics: [topic],
        maxBatchSize: 3,
        batchHandler: async (messages) => {
          const failed = failuresLeft > 0 && messages.some((message) => message.value === 'm5');
          if (failed) failuresLeft--;
          calls.push({
            offsets: messages.map((message) => message.offset),
            values: messages.map((message) => message.value),
            failed,
          });
          if (failed) throw new Error('batch handler failed on purpose');
        },
        onHandlerError: (_error, message, attempt) =>
          reported.push({ offset: message.offset, attempt }),
      });

      const values = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8'];
      await bus.publish(
        topic,
        values.map((value) => ({ key: 'one-key', value })),
      );
      await waitFor(
        () => calls.some((call) => !call.failed && call.values.includes('m8')),
        'the last message',
      );

      const firstFailure = calls.findIndex((call) => call.failed);
      assert.ok(firstFailure >= 0, 'the batch with m5 failed');
      const failedBatch = calls[firstFailure]!;
      // The two calls right after the first failure are the same batch: a retry, then its success.
      assert.deepEqual(
        calls.slice(firstFailure, firstFailure + 3).map((call) => [call.offsets, call.failed]),
        [
          [failedBatch.offsets, true],
          [failedBatch.offsets, true],
          [failedBatch.offsets, false],
        ],
      );
      assert.deepEqual(
        calls.filter((call) => !call.failed).flatMap((call) => call.values),
        values,
        'every message handled successfully once, in order',
      );
      assert.deepEqual(reported, [
        { offset: failedBatch.offsets[0], attempt: 1 },
        { offset: failedBatch.offsets[0], attempt: 2 },
      ]);
    });

    it('commits a batch only after it succeeded: a new consumer of the group resumes at the failed batch', async () => {
      const topic = unique('batch-handoff');
      const groupId = unique('group');
      await bus.ensureTopics([{ name: topic, partitions: 1 }]);
      const calls: Array<{ values: string[]; failed: boolean }> = [];
      const first = await subscribe({
        groupId,
        topics: [topic],
        maxBatchSize: 2,
        batchHandler: async (messages) => {
          const values = messages.map((message) => message.value);
          const failed = values.includes('m3');
          calls.push({ values, failed });
          if (failed) throw new Error('cannot handle m3 yet');
        },
      });
      const values = ['m1', 'm2', 'm3', 'm4', 'm5'];
      await bus.publish(
        topic,
        values.map((value) => ({ key: 'one-key', value })),
      );
      await waitFor(
        () => calls.filter((call) => call.failed).length >= 2,
        'the batch with m3 to fail twice',
      );
      await first.close();

      const firstFailure = calls.findIndex((call) => call.failed);
      const failedBatch = calls[firstFailure]!.values;
      assert.ok(
        calls
          .slice(firstFailure)
          .every((call) => call.failed && call.values.join() === failedBatch.join()),
        'after the failure only the failed batch was tried again',
      );
      const handledBeforeFailure = calls.slice(0, firstFailure).flatMap((call) => call.values);

      const successor = new BatchRecorder();
      await subscribe({ groupId, topics: [topic], batchHandler: successor.batchHandler });
      await waitFor(() => successor.distinctValues().has('m5'), 'the successor to reach m5');

      assert.deepEqual(
        successor.messages().map((message) => message.value),
        values.slice(handledBeforeFailure.length),
        'the successor starts at the first message of the failed batch',
      );
      assert.deepEqual(handledBeforeFailure, values.slice(0, values.indexOf(failedBatch[0]!)));
    });

    it('delivers a lone message at once as a batch of 1', async () => {
      const topic = unique('batch-lone');
      await bus.ensureTopics([{ name: topic, partitions: 2 }]);
      const received = new BatchRecorder();
      await subscribe({
        groupId: unique('group'),
        topics: [topic],
        batchHandler: received.batchHandler,
      });

      // Nothing else is published while waiting: a bus that held out for a fuller batch would time out.
      await bus.publish(topic, [{ key: 'lone-key', value: 'lone-1' }]);
      await waitFor(() => received.batches.length >= 1, 'the first lone message');
      await bus.publish(topic, [{ key: 'lone-key', value: 'lone-2' }]);
      await waitFor(() => received.batches.length >= 2, 'the second lone message');

      assert.deepEqual(
        received.batches.map((batch) => batch.map((message) => message.value)),
        [['lone-1'], ['lone-2']],
      );
    });

    it('with lingerMs, hands what was published during the linger over in one delivery', async () => {
      const topic = unique('batch-linger');
      await bus.ensureTopics([{ name: topic, partitions: 1 }]);
      const received = new BatchRecorder();
      await subscribe({
        groupId: unique('group'),
        topics: [topic],
        // Long beside the three publications below, so they all fall inside it.
        lingerMs: 1_500,
        batchHandler: received.batchHandler,
      });

      await bus.publish(topic, [{ key: 'linger-key', value: 'first' }]);
      await waitFor(() => received.batches.length >= 1, 'the first message');
      for (const value of ['second', 'third', 'fourth'])
        await bus.publish(topic, [{ key: 'linger-key', value }]);
      await waitFor(
        () => received.batches.flat().length >= 4,
        'the three messages published during the linger',
      );

      assert.deepEqual(
        received.batches.map((batch) => batch.map((message) => message.value)),
        [['first'], ['second', 'third', 'fourth']],
      );
    });

    it('refuses a subscription without exactly one handler or with a bad maxBatchSize or lingerMs', async () => {
      const topic = unique('batch-options');
      const groupId = unique('group');
      const handler = async (): Promise<void> => undefined;
      const batchHandler = async (): Promise<void> => undefined;
      // The types already refuse these; subscribe must refuse them too (for callers that cast).
      // @ts-expect-error: one handler or the other, not both
      const both: SubscribeOptions = { groupId, topics: [topic], handler, batchHandler };
      // @ts-expect-error: nor neither
      const neither: SubscribeOptions = { groupId, topics: [topic] };
      // @ts-expect-error: maxBatchSize belongs to batchHandler
      const sizedHandler: SubscribeOptions = {
        groupId,
        topics: [topic],
        handler,
        maxBatchSize: 10,
      };
      await assert.rejects(bus.subscribe(both), /exactly one of handler and batchHandler/);
      await assert.rejects(bus.subscribe(neither), /exactly one of handler and batchHandler/);
      await assert.rejects(
        bus.subscribe(sizedHandler),
        /maxBatchSize applies only with batchHandler/,
      );
      for (const maxBatchSize of [0, -1, 2.5, Number.NaN]) {
        await assert.rejects(
          bus.subscribe({ groupId, topics: [topic], batchHandler, maxBatchSize }),
          /maxBatchSize must be a positive integer/,
        );
      }
      // @ts-expect-error: lingerMs belongs to batchHandler
      const lingeringHandler: SubscribeOptions = {
        groupId,
        topics: [topic],
        handler,
        lingerMs: 10,
      };
      await assert.rejects(
        bus.subscribe(lingeringHandler),
        /lingerMs applies only with batchHandler/,
      );
      for (const lingerMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
        await assert.rejects(
          bus.subscribe({ groupId, topics: [topic], batchHandler, lingerMs }),
          /lingerMs must be a number of milliseconds >= 0/,
        );
      }
    });
  });
}

class Recorder {
  readonly messages: IncomingMessage[] = [];
  readonly handler = async (message: IncomingMessage): Promise<void> => {
    this.messages.push(message);
  };

  distinctValues(): Set<string> {
    return new Set(this.messages.map((message) => message.value));
  }

  byValue(value: string): IncomingMessage {
    const message = this.messages.find((candidate) => candidate.value === value);
    assert.ok(message, `a message with value ${value}`);
    return message;
  }
}

class BatchRecorder {
  readonly batches: IncomingMessage[][] = [];
  readonly batchHandler = async (messages: IncomingMessage[]): Promise<void> => {
    this.batches.push([...messages]);
  };

  messages(): IncomingMessage[] {
    return this.batches.flat();
  }

  distinctValues(): Set<string> {
    return new Set(this.messages().map((message) => message.value));
  }
}

/** 1..maxBatchSize messages of one partition of `topic`, with consecutive offsets. */
function assertWellFormedBatch(
  batch: readonly IncomingMessage[],
  topic: string,
  maxBatchSize: number,
): void {
  assert.ok(
    batch.length >= 1 && batch.length <= maxBatchSize,
    `batch of ${batch.length} within 1..${maxBatchSize}`,
  );
  const first = batch[0]!;
  batch.forEach((message, index) => {
    assert.equal(message.topic, topic);
    assert.equal(message.partition, first.partition, 'one partition per batch');
    assert.equal(Number(message.offset), Number(first.offset) + index, 'consecutive offsets');
  });
}

function numberedMessages(count: number, prefix = 'msg'): OutgoingMessage[] {
  return Array.from({ length: count }, (_, index) => ({
    key: `${prefix}-key-${index}`,
    value: `${prefix}-${index}`,
  }));
}

/** Polls `condition`; fails the test with `what` if it does not hold within `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean,
  what: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
