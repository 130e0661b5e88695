import type { LogEntry, logCreator } from 'kafkajs';

/**
 * kafkajs's console output as one JSON line per entry on stderr, without the per-request
 * "[Connection] Response ..." errors: those are protocol answers kafkajs handles itself
 * (rebalance in progress, coordinator loading, leader moved) and flood the log on every rebalance.
 * Failures that matter still surface as thrown errors, crashes and the client's own log lines.
 */
export const kafkaLogCreator: logCreator = () => (entry: LogEntry) => {
  if (entry.namespace === 'Connection' && entry.log.message.startsWith('Response ')) return;
  const { timestamp, message, ...details } = entry.log;
  process.stderr.write(
    `${JSON.stringify({ level: entry.label, time: timestamp, logger: 'kafkajs', namespace: entry.namespace, msg: message, ...details })}\n`,
  );
};
