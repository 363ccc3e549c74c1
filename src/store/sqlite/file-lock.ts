/**
 * One async lock per database file for the whole process. better-sqlite3 waits for another
 * connection's write lock by sleeping synchronously; if that other connection belongs to
 * this same process it can never finish, so connections of one process to one file take
 * turns here instead. Other processes are still kept apart by SQLite's own locking.
 */
interface Turns {
  /** The last turn taken, or undefined when every turn has been given back. */
  tail: Promise<void> | undefined;
}

/**
 * The files' queues. A file's entry stays when its queue empties (it is changed in place), and
 * idle entries go only when many files were locked: removing it at every empty queue, many times
 * a second under load, made the Map rebuild its table each time, and V8 moved every new table, and
 * the promises it held, to the old generation (see ../../in-place-caches.ts).
 */
const files = new Map<string, Turns>();
const IDLE_FILES_KEPT = 64;

/** Waits for the file's turn; the returned function gives the turn to the next waiter. */
export async function lockFile(path: string): Promise<() => void> {
  let turns = files.get(path);
  if (turns === undefined) {
    if (files.size >= IDLE_FILES_KEPT) forgetIdleFiles();
    turns = { tail: undefined };
    files.set(path, turns);
  }
  const previous = turns.tail ?? Promise.resolve();
  let release!: () => void;
  const turn = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => turn);
  turns.tail = tail;
  await previous;
  const own = turns;
  return () => {
    if (own.tail === tail) {
      own.tail = undefined;
    }
    release();
  };
}

function forgetIdleFiles(): void {
  for (const [path, turns] of files) {
    if (turns.tail === undefined) files.delete(path);
  }
}
