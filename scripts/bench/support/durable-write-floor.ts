// The floor of a durable rule PATCH on the machine at hand: a bare Express app that makes the
// PATCH's write itself with better-sqlite3 directly on the store's own file and schema, and
// nothing else. One BEGIN IMMEDIATE transaction reads the ruleset's version, updates the rule,
// bumps the version and inserts the new version's snapshot, then COMMIT, in WAL mode with
// synchronous=NORMAL as the store runs: the same pages written and the same file locks taken as
// the server's PATCH. No store code, no authentication, no expression checks, and the validator
// only when given: what no server that keeps one transaction per durable write (and validates
// requests with the given validator) can leave out.
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import express, { type RequestHandler } from 'express';
import { basePath } from '../../../src/server';
import type { Ruleset } from '../../../src/store';
import { SQLITE_FILE_NAME } from '../../../src/store/sqlite/open';

/**
 * `entryPoint`: the answer the server gives for the ruleset before any PATCH; `validator`: the
 * server's request validator, to run before the write.
 */
export function durableWriteFloorApp(dataDir: string, entryPoint: Ruleset, validator?: RequestHandler[]): { app: express.Express; close(): void } {
  const database = new BetterSqlite3(join(dataDir, SQLITE_FILE_NAME), { timeout: 5000 });
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  const readVersion = database.prepare<[string], { version: number }>('select version from rulesets where id = ?');
  const updateRule = database.prepare('update rules set enabled = ?, version = ?, last_updated = ? where ruleset_id = ? and id = ?');
  const bumpVersion = database.prepare('update rulesets set version = ?, last_updated = ? where id = ? and version = ?');
  const insertVersion = database.prepare('insert into ruleset_versions (ruleset_id, version, last_updated, snapshot) values (?, ?, ?, ?)');

  /** The new version's JSON text, or null when the ruleset or the rule does not exist. */
  const transaction = database.transaction((rulesetId: string, ruleId: string, enabled: boolean): string | null => {
    const current = readVersion.get(rulesetId);
    if (!current || rulesetId !== entryPoint.id) return null;
    const version = current.version + 1;
    const now = new Date().toISOString();
    if (updateRule.run(enabled ? 1 : 0, version, now, rulesetId, ruleId).changes !== 1) return null;
    bumpVersion.run(version, now, rulesetId, current.version);
    const rules = entryPoint.rules.map((rule) => (rule.id === ruleId ? { ...rule, enabled, version: String(version), last_updated: now } : rule));
    const snapshot = JSON.stringify({ ...entryPoint, version: String(version), last_updated: now, rules });
    insertVersion.run(rulesetId, version, now, snapshot);
    return snapshot;
  });
  const write = (rulesetId: string, ruleId: string, enabled: boolean) => transaction.immediate(rulesetId, ruleId, enabled);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json({ limit: '1mb' }));
  if (validator) app.use(validator);
  app.patch(`${basePath}/zones/:zone_id/rulesets/:ruleset_id/rules/:rule_id`, (req, res) => {
    const snapshot = write(req.params.ruleset_id, req.params.rule_id, (req.body as { enabled?: unknown }).enabled === true);
    if (snapshot === null) {
      res.status(404).json({ result: null, success: false, errors: [{ code: 7003, message: 'Could not route' }], messages: [] });
      return;
    }
    res.type('json').send(`{"result":${snapshot},"success":true,"errors":[],"messages":[]}`);
  });
  return { app, close: () => database.close() };
}
