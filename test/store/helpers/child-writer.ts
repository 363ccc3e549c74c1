/**
 * Run as a separate process by the concurrency and crash tests:
 *   node --import tsx child-writer.ts '<connection json>' <mode> <args...>
 * Modes:
 *   append <zoneId> <rulesetId> <label> <count>  read-modify-write: append one rule per transaction
 *   patch <zoneId> <rulesetId> <ruleId> <count>  rule PATCHes toggling `enabled`
 *   die-mid-transaction <zoneId> <rulesetId>     write inside a transaction, then SIGKILL itself
 *   die-after-commit <zoneId> <rulesetId>        commit a write, report it, then SIGKILL itself
 */
import { openStoreAt } from './open-at';
import type { StoreConnection } from './harness';

const [connectionJson, mode, zoneId, rulesetId, third, fourth] = process.argv.slice(2);
if (connectionJson === undefined || mode === undefined || zoneId === undefined || rulesetId === undefined) {
  throw new Error('usage: child-writer.ts <connection> <mode> <zoneId> <rulesetId> [...]');
}
const store = await openStoreAt(JSON.parse(connectionJson) as StoreConnection, { seed: false });
const scope = { zone_id: zoneId };

switch (mode) {
  case 'append': {
    for (let i = 0; i < Number(fourth); i += 1) {
      await store.transaction(async (tx) => {
        const ruleset = await tx.rulesets.get(scope, rulesetId);
        if (ruleset === null) throw new Error(`ruleset ${rulesetId} not found`);
        const kept = ruleset.rules.map(({ id, action, expression, description, enabled }) => ({ id, action, expression, description, enabled }));
        await tx.rulesets.update(scope, rulesetId, {
          rules: [...kept, { action: 'log', expression: 'true', description: `${third}-${i}` }],
        });
      });
    }
    break;
  }
  case 'patch': {
    for (let i = 0; i < Number(fourth); i += 1) {
      await store.rulesets.updateRule(scope, rulesetId, String(third), { enabled: i % 2 === 0 });
    }
    break;
  }
  case 'die-mid-transaction': {
    await store.transaction(async (tx) => {
      await tx.rulesets.update(scope, rulesetId, { rules: [{ action: 'block', expression: 'true', description: 'never committed' }] });
      await tx.logpushJobs.create(zoneId, { dataset: 'http_requests', destination_conf: 's3://never?region=x' });
      process.kill(process.pid, 'SIGKILL');
      await new Promise(() => undefined);
    });
    break;
  }
  case 'die-after-commit': {
    const ruleset = await store.rulesets.update(scope, rulesetId, {
      rules: [{ action: 'block', expression: 'true', description: 'acknowledged' }],
    });
    process.stdout.write(`${ruleset.version}\n`, () => process.kill(process.pid, 'SIGKILL'));
    await new Promise(() => undefined);
    break;
  }
  default:
    throw new Error(`unknown mode ${mode}`);
}
await store.close();
