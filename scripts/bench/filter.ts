/**
 * Throughput of the rules language: validations per second for typical rule
 * expressions and for one of the maximum size (4096 characters), and
 * evaluations per second of compiled rules. The baseline, measured in the same
 * run on the same machine, is JSON.parse of a JSON document as long as the
 * expression; the ratio says how many times slower validating is than that.
 *
 * Run alone with `npx tsx scripts/bench/filter.ts`.
 */
import { pathToFileURL } from 'node:url';
import { compile, parse, validate } from '../../src/filter/index';

const TYPICAL = [
  'http.request.uri.path contains "/admin" and not ip.src in {192.0.2.0/24 2001:db8::/32}',
  '(http.host eq "example.com" and http.request.uri.path matches "^/api/v[0-9]+/") or cf.threat_score gt 40',
  'any(http.request.headers.names[*] eq "x-debug") and not ssl',
  'lower(http.user_agent) contains "sqlmap" or http.user_agent wildcard "*nikto*"',
  'ip.src.country in {"CN" "RU" "KP"} and cf.bot_management.score lt 30 and not cf.bot_management.verified_bot',
  'http.request.method in {"POST" "PUT" "PATCH"} and len(http.request.body.raw) gt 1048576',
  'any(url_decode(http.request.body.form.values[*])[*] contains "<script") or http.request.uri.path matches "(?i)^/api/v\\d+/[a-z&&[^aeiou]]+"',
];

/** A realistic rule at the length limit: a long block list plus path and header conditions. */
function maximumExpression(): string {
  const head = 'http.request.uri.path wildcard "/wp-*" and any(lower(http.request.headers.names[*])[*] eq "x-forwarded-for") and ip.src in {';
  const tail = '} and not cf.bot_management.verified_bot';
  const networks: string[] = [];
  for (let i = 0; head.length + networks.join(' ').length + tail.length < 4070; i++) {
    networks.push(`${10 + (i % 200)}.${i % 256}.${(i * 7) % 256}.0/24`);
  }
  const text = head + networks.join(' ') + tail;
  return text + ' '.repeat(4096 - text.length);
}

/** An expression at the length limit made of functions over `[*]` and regexes of the engine's dialect. */
function maximumMappedExpression(): string {
  const parts: string[] = [];
  for (let i = 0; [...parts, ''].join(' or ').length < 3900; i++) {
    parts.push(
      i % 2 === 0
        ? `any(lower(url_decode(http.request.body.form.values[*])[*])[*] contains "attack-${i}")`
        : `http.request.uri.path matches "(?x) ^/v${i} / [[:alpha:]]{ 2 , 8 } # section"`,
    );
  }
  const text = parts.join(' or ');
  return text + ' '.repeat(4096 - text.length);
}

/** Calls `fn` repeatedly for about `ms` milliseconds and answers the calls per second. */
function rate(fn: () => void, ms = 700): number {
  for (let i = 0; i < 200; i++) fn();
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < 50; i++) fn();
    calls += 50;
    elapsed = performance.now() - start;
  }
  return (calls / elapsed) * 1000;
}

/**
 * Milliseconds of CPU time per call of `fn`. On a shared machine the wall-clock
 * rate above depends on the load; CPU time measures the work itself.
 */
function cpuMsPerCall(fn: () => void, calls = 1000): number {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / calls;
}

/** A JSON document of exactly `length` characters, for the baseline. */
function jsonOfLength(length: number): string {
  const frame = JSON.stringify({ expression: '' });
  return JSON.stringify({ expression: 'x'.repeat(Math.max(0, length - frame.length)) });
}

function report(label: string, inputs: readonly string[]): void {
  for (const input of inputs) {
    const result = validate(input);
    if (!result.ok) throw new Error(`benchmark input does not validate:\n${result.error.message}`);
  }
  const json = inputs.map((input) => jsonOfLength(input.length));
  let i = 0;
  const validations = rate(() => validate(inputs[i++ % inputs.length] ?? ''));
  let j = 0;
  const parses = rate(() => JSON.parse(json[j++ % json.length] ?? '""'));
  const chars = Math.round(inputs.reduce((sum, s) => sum + s.length, 0) / inputs.length);
  const cpu = cpuMsPerCall(() => validate(inputs[i++ % inputs.length] ?? ''));
  console.log(
    `${label.padEnd(34)} ${Math.round(validations).toLocaleString('en').padStart(10)} validations/s | ` +
      `baseline JSON.parse of ${chars} chars: ${Math.round(parses).toLocaleString('en').padStart(10)}/s | ` +
      `ratio ${(parses / validations).toFixed(1)}x slower | ${cpu.toFixed(3)} ms CPU per validation`,
  );
}

export async function run(): Promise<void> {
  console.log('rules language: validate() throughput (baseline: JSON.parse of a same-length JSON string)');
  report(`typical rules (${TYPICAL.length} expressions)`, TYPICAL);
  report('maximum size (4096 characters)', [maximumExpression()]);
  report('maximum size, mapped and regexes', [maximumMappedExpression()]);

  const context = {
    'http.request.uri.path': '/wp-login.php',
    'http.request.headers.names': ['Host', 'X-Forwarded-For', 'Accept'],
    'ip.src': '10.5.35.9',
    'cf.bot_management.verified_bot': false,
    'http.host': 'example.com',
    'cf.threat_score': 12,
  };
  const filters = [...TYPICAL, maximumExpression()].map((text) => compile(parse(text)));
  let k = 0;
  const evaluations = rate(() => filters[k++ % filters.length]?.evaluate(context));
  console.log(`${'evaluate() of compiled rules'.padEnd(34)} ${Math.round(evaluations).toLocaleString('en').padStart(10)} evaluations/s`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
