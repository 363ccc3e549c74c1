/**
 * One async lock per database file for the whole process. better-sqlite3 waits for another
 * connection's write lock by sleeping synchronously; if that other connection belongs to
 * this same process it can never finish, so connections of one process to one file take
 * turns here instead. Other processes are still kept apart by SQLite's own locking.
 */
const tails = new Map<string, Promise<void>>();

/** Waits for the file's turn; the returned function gives the turn to the next waiter. */
export async function lockFile(path: string): Promise<() => void> {
  const previous = tails.get(path) ?? Promise.resolve();
  let release!: () => void;
  const turn = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => turn);
  tails.set(path, tail);
  await previous;
  return () => {
    if (tails.get(path) === tail) {
      tails.delete(path);
    }
    release();
  };
}
