/**
 * The change marker of what is deployed: one row whose version goes up inside every write
 * transaction that changes what the runtime serves (scripts, versions, deployments, secrets,
 * subdomains, routes). It moves with the transaction: a reader that sees the new number sees
 * the committed change, on every instance sharing the database.
 */
import { sql } from 'kysely';
import type { WriteContext } from '../transaction/context';
import type { Db } from './rows';

const SCOPE = 'deployed';

export async function markChanged(ctx: WriteContext): Promise<void> {
  await ctx.db
    .insertInto('worker_changes')
    .values({ scope: SCOPE, version: 1 })
    .onConflict((conflict) => conflict.column('scope').doUpdateSet({ version: sql<number>`worker_changes.version + 1` }))
    .execute();
}

export async function changeMarker(db: Db): Promise<number> {
  const row = await db.selectFrom('worker_changes').select('version').where('scope', '=', SCOPE).executeTakeFirst();
  return row === undefined ? 0 : Number(row.version);
}
