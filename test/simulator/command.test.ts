// `npm run simulate` as a user runs it: a child process over a data directory, its readable trace,
// its JSON, and its exit codes for unknown zones, bad request files and bad arguments.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulationResult } from '../../src/simulator';
import { PRO, fixture, fixturePath } from './helpers';

const root = path.resolve(import.meta.dirname, '../..');
let dir: string;
let dataDir: string;
let requestFile: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the script as the npm script does (tsx), or another command line. */
function run(args: string[], command: string[] = [process.execPath, '--import', 'tsx', 'scripts/simulate.ts']): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command[0]!, [...command.slice(1), ...args], { cwd: root, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'simulate-command-'));
  dataDir = path.join(dir, 'data');
  requestFile = path.join(dir, 'xss.json');
  // The fixture with its ray id and time fixed, so the whole trace is known.
  writeFileSync(requestFile, JSON.stringify({ ...fixture('xss-script-tag'), overrides: { 'cf.ray_id': '8e2f4c1a9b3d7e60', 'http.request.timestamp.msec': 1795255200000 } }));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('simulate command', () => {
  it('prints the readable trace of a request on the seeded Pro zone (exit 0)', async () => {
    const { code, stdout, stderr } = await run(['--zone', PRO, '--request', requestFile, '--data-dir', dataDir]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe(`GET https://example.org/search?q=<script>alert(document.cookie)</script> on zone example.org (${PRO})
  HTTP/2 from 203.0.113.66, ray 8e2f4c1a9b3d7e60, 2026-11-21T10:00:00.000Z

Phases
  1. http_request_firewall_custom: no entry point
  2. http_request_firewall_managed
     ruleset "default" (zone, version 2): 2 of 2 rules matched
       [matched] execute Execute Platform Managed Ruleset
           ruleset "Platform Managed Ruleset" (managed, version 2): 0 of 7 rules matched, 1 disabled
       [matched] execute Execute OWASP Core Ruleset
           ruleset "OWASP Core Ruleset" (managed, version 3): 4 of 64 rules matched, 7 disabled
             [matched] log +15 941110: XSS Filter - Category 1: Script Tag Vector
             [matched] log +15 941180: Node-Validator Deny List Keywords
             [matched] log +10 941330: IE XSS Filters - Attack Detected
             [matched] managed_challenge 949110: Inbound anomaly score exceeded: threat score 40 is above the threshold 25
  3. http_response_firewall_managed: not reached (the request ended in http_request_firewall_managed)

OWASP threat score: 40 at paranoia level 2, threshold 25 (overridden; default 40): exceeded, action managed_challenge
  +15 941110: XSS Filter - Category 1: Script Tag Vector
  +15 941180: Node-Validator Deny List Keywords
  +10 941330: IE XSS Filters - Attack Detected
Outcome: managed_challenge (status 403) by rule 6179ae15870a4bb7b2d480d4843b323c "949110: Inbound anomaly score exceeded" of ruleset "OWASP Core Ruleset" in http_request_firewall_managed

Custom log fields: x-request-id (request header), referer (request header), cache-control (response header), sessionId (cookie)
Log entry of job 1 "example-org-http-requests":
  ClientIP: "203.0.113.66"
  ClientRequestHost: "example.org"
  ClientRequestMethod: "GET"
  ClientRequestURI: "/search?q=<script>alert(document.cookie)</script>"
  EdgeResponseStatus: 403
  RayID: "8e2f4c1a9b3d7e60"
  RequestHeaders: {"x-request-id":"7d1e"}
  ResponseHeaders: {}
  Cookies: {"sessionId":"6f1c0a9e2b"}
`);
  }, 60_000);

  it('prints the whole result as JSON with --json', async () => {
    const { code, stdout } = await run(['--zone', PRO, '--request', fixturePath('path-traversal'), '--data-dir', dataDir, '--json']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as SimulationResult;
    expect(result.owasp?.score).toMatchObject({ total: 45, threshold: 25, exceeded: true, paranoia_level: 2 });
    expect(result.outcome).toMatchObject({ action: 'managed_challenge', status: 403 });
    expect(result.context['raw.http.request.uri.query']).toBe('file=../../../../etc/passwd');
  }, 60_000);

  it('names an unknown zone (exit 1)', async () => {
    const { code, stdout, stderr } = await run(['--zone', '0123456789abcdef0123456789abcdef', '--request', requestFile, '--data-dir', dataDir]);
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toBe(`simulate: zone 0123456789abcdef0123456789abcdef not found in the store of ${dataDir}\n`);
  }, 60_000);

  it('lists every problem of an invalid request file (exit 1)', async () => {
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ method: 'GET', url: 'ftp://example.org/', overrides: { 'http.host': 'x' } }));
    const { code, stderr } = await run(['--zone', PRO, '--request', bad, '--data-dir', dataDir]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `simulate: the request file ${bad} is not a valid request description:\n` +
        '  - url: scheme ftp is not simulated (use http or https)\n' +
        '  - overrides.http.host: is derived from url; describe the request instead of overriding it\n',
    );
  }, 60_000);

  it('says when the request file is not JSON or cannot be read (exit 1)', async () => {
    const notJson = path.join(dir, 'not.json');
    writeFileSync(notJson, '{ "method": "GET", ');
    const broken = await run(['--zone', PRO, '--request', notJson, '--data-dir', dataDir]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(new RegExp(`^simulate: the request file ${notJson} is not JSON: `));
    const missing = await run(['--zone', PRO, '--request', path.join(dir, 'missing.json'), '--data-dir', dataDir]);
    expect(missing).toMatchObject({ code: 1, stderr: `simulate: cannot read the request file ${path.join(dir, 'missing.json')}: ENOENT\n` });
  }, 60_000);

  it('refuses missing and unknown arguments with the usage (exit 2)', async () => {
    const missing = await run(['--zone', PRO]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^simulate: missing --request\n\nUsage: npm run -s simulate -- --zone <zone id> --request <file.json>/);
    const unknown = await run(['--zone', PRO, '--request', requestFile, '--verbose']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^simulate: Unknown option '--verbose'/);
  }, 60_000);

  it('is the npm script `simulate`', async () => {
    const help = await run(['--help'], ['npm', 'run', '-s', 'simulate', '--']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit status:\n  0  the request was simulated');
  }, 60_000);
});
