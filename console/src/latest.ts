// Live data is read again on every event, and two reads can answer out of order: only the
// answer to the latest read is drawn, so an older one never overwrites a newer.

/** A refresh: each call reads, and applies the answer unless a later call started meanwhile. */
export function latestOnly<T>(read: () => Promise<T>, apply: (value: T) => void, fail: (error: unknown) => void): () => Promise<void> {
  let asked = 0;
  return async () => {
    const mine = ++asked;
    try {
      const value = await read();
      if (mine === asked) apply(value);
    } catch (error) {
      if (mine === asked) fail(error);
    }
  };
}
