/**
 * Runs `work` and counts the turns the event loop made meanwhile (a `setImmediate` chain): a test of code
 * that must hand the loop back between parts of a long job, so other requests are served between them.
 */
export async function eventLoopTurnsDuring<T>(
  work: () => Promise<T>,
): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let working = true;
  const turn = (): void => {
    if (!working) return;
    turns += 1;
    setImmediate(turn);
  };
  setImmediate(turn);
  try {
    return { result: await work(), turns };
  } finally {
    working = false;
  }
}
