/**
 * The `http_requests` log entry each of the zone's log push jobs would push for the request:
 * the fields its `logpull_options` select, in that order, with the custom fields. Fields a
 * simulation cannot know (cache, origin timings, colo...) answer null and are listed as such.
 */
import type { FieldValue } from '../filter';
import type { LogpushJob, Zone } from '../store';
import type { CustomFieldValues } from './custom-fields';
import { type SimulatedRequest, headerValues } from './request';
import type { FinalOutcome, LogEntryTrace, RuleLocation } from './types';

export const LOG_DATASET = 'http_requests';

export interface LogInputs {
  zone: Zone;
  request: SimulatedRequest;
  /** The rules-language context (overridden platform fields are read from it). */
  context: Readonly<Record<string, FieldValue>>;
  outcome: FinalOutcome;
  /** Content type of the edge's own answer when an action ended the request. */
  edgeContentType: string | null;
  /** Whether the request reached the origin (no terminating action in a request phase). */
  reachedOrigin: boolean;
  matched: readonly RuleLocation[];
  custom: CustomFieldValues;
}

type Derive = (inputs: LogInputs) => unknown;

const SOURCES: Record<string, string> = {
  http_request_firewall_custom: 'firewallCustom',
  http_request_firewall_managed: 'firewallManaged',
  http_response_firewall_managed: 'firewallManaged',
};

const field = (name: string): Derive => (inputs) => inputs.context[name];

const DERIVATIONS: Readonly<Record<string, Derive>> = {
  BotDetectionIDs: field('cf.bot_management.detection_ids'),
  BotScore: field('cf.bot_management.score'),
  ClientASN: field('ip.src.asnum'),
  ClientCountry: ({ context }) => (typeof context['ip.src.country'] === 'string' ? context['ip.src.country'].toLowerCase() : undefined),
  ClientIP: ({ request }) => request.clientIp,
  ClientMTLSAuthCertFingerprint: field('cf.tls_client_auth.cert_fingerprint_sha256'),
  ClientRegionCode: field('ip.src.region_code'),
  ClientRequestBytes: ({ request }) => requestBytes(request),
  ClientRequestHost: ({ request }) => request.target.host,
  ClientRequestMethod: ({ request }) => request.method,
  ClientRequestPath: ({ request }) => request.target.rawPath,
  ClientRequestProtocol: ({ request }) => request.version,
  ClientRequestReferer: field('http.referer'),
  ClientRequestScheme: ({ request }) => request.target.scheme,
  ClientRequestSource: () => 'eyeball',
  ClientRequestURI: field('raw.http.request.uri'),
  ClientRequestUserAgent: field('http.user_agent'),
  ClientSSLCipher: ({ context }) => context['cf.tls_cipher'] ?? 'NONE',
  ClientSSLProtocol: ({ context }) => context['cf.tls_version'] ?? 'none',
  ClientTCPRTTMs: field('cf.timings.client_tcp_rtt_msec'),
  ClientXRequestedWith: ({ request }) => headerValues(request.headers, 'x-requested-with')[0] ?? '',
  ContentScanObjResults: field('cf.waf.content_scan.obj_results'),
  ContentScanObjTypes: field('cf.waf.content_scan.obj_types'),
  Cookies: ({ custom }) => custom.Cookies,
  EdgeCFConnectingO2O: () => false,
  EdgeRequestHost: ({ request }) => request.target.host,
  EdgeResponseContentType: responseContentType,
  EdgeResponseStatus: ({ outcome }) => outcome.status ?? undefined,
  EdgeServerIP: field('cf.edge.server_ip'),
  JA3Hash: field('cf.bot_management.ja3_hash'),
  JA4: field('cf.bot_management.ja4'),
  OriginResponseStatus: ({ request, reachedOrigin }) => (reachedOrigin ? request.response?.status : 0),
  RayID: ({ request }) => request.rayId,
  RequestHeaders: ({ custom }) => custom.RequestHeaders,
  ResponseHeaders: ({ custom }) => custom.ResponseHeaders,
  SecurityAction: ({ outcome }) => outcome.action ?? '',
  SecurityActions: ({ matched }) => matched.map((rule) => rule.action),
  SecurityRuleDescription: ({ outcome }) => outcome.rule?.description ?? '',
  SecurityRuleID: ({ outcome }) => outcome.rule?.rule_id ?? '',
  SecurityRuleIDs: ({ matched }) => matched.map((rule) => rule.rule_id),
  SecuritySources: ({ matched }) => matched.map((rule) => SOURCES[rule.phase] ?? rule.phase),
  WAFAttackScore: field('cf.waf.score'),
  WAFRCEAttackScore: field('cf.waf.score.rce'),
  WAFSQLiAttackScore: field('cf.waf.score.sqli'),
  WAFXSSAttackScore: field('cf.waf.score.xss'),
  ZoneName: ({ zone }) => zone.name,
};

export function logEntry(job: LogpushJob, inputs: LogInputs): LogEntryTrace {
  const options = new URLSearchParams(job.logpull_options ?? '');
  const fields = (options.get('fields') ?? '').split(',').filter((name) => name !== '');
  const timestamps = options.get('timestamps') ?? 'unixnano';
  const entry: Record<string, unknown> = {};
  const unavailable: string[] = [];
  for (const name of fields) {
    const value = name === 'EdgeStartTimestamp' || name === 'EdgeEndTimestamp' ? formatTime(inputs.request.timestampMs, timestamps) : DERIVATIONS[name]?.(inputs);
    if (value === undefined) unavailable.push(name);
    entry[name] = value ?? null;
  }
  return { job: { id: job.id, name: job.name, enabled: job.enabled }, fields, entry, unavailable };
}

/** A blocked or challenged request gets the edge's own answer; otherwise the origin's content type. */
function responseContentType({ edgeContentType, request }: LogInputs): string | undefined {
  if (edgeContentType !== null) return edgeContentType;
  return request.response ? (headerValues(request.response.headers, 'content-type')[0] ?? '') : undefined;
}

/** The request's size on the wire in HTTP/1.1 form: request line, header lines, blank line, body. */
function requestBytes(request: SimulatedRequest): number {
  const uri = `${request.target.rawPath}${request.target.rawQuery === null ? '' : `?${request.target.rawQuery}`}`;
  const head = [`${request.method} ${uri} HTTP/1.1`, ...request.headers.map(([name, value]) => `${name}: ${value}`)].join('\r\n');
  return new TextEncoder().encode(`${head}\r\n\r\n${request.body}`).length;
}

/** Timestamps as the job's `timestamps` option asks; nanoseconds exceed a JSON-safe number, so they are a string. */
function formatTime(ms: number, format: string): string | number {
  if (format === 'rfc3339') return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  if (format === 'unix') return Math.floor(ms / 1000);
  return (BigInt(ms) * 1_000_000n).toString();
}
