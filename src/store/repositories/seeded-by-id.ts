import type { SeededRows } from '../seeded-rows';
import type { ReadContext } from '../transaction/context';
import type { Executor } from '../transaction/executor';

/**
 * A zone or an account by id: from memory at once (every lookup after the first), otherwise read
 * by `read` and remembered. `read` is a plain function, not a closure made per call, since every
 * request looks up its zone or account.
 */
export async function seededById<T extends { id: string }>(
  executor: Executor,
  rows: SeededRows<T>,
  id: string,
  read: (db: ReadContext['db'], id: string) => Promise<T | undefined>,
): Promise<T | null> {
  const known = executor.readNow(knownRow<T>, rows, id);
  if (known !== undefined) return known;
  return executor.readStatement(async (ctx) => {
    const row = await read(ctx.db, id);
    return row === undefined ? null : rows.remember(row);
  });
}

function knownRow<T extends { id: string }>(_ctx: ReadContext, rows: SeededRows<T>, id: string): T | undefined {
  return rows.get(id);
}
