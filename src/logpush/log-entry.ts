/**
 * The `http_requests` log entry of one request for a log push job: the fields the job selects,
 * in that order, with the zone's custom fields. The edge logs what it saw; the simulator logs what
 * it can know, and fields only a live request has (its end, the client's port, bytes sent,
 * timings, the worker...) answer null there and are listed as unavailable.
 */
import { type ContextValue, type EdgeRequest, type FinalOutcome, type ResponseHead, type RuleLocation, headerValues } from '../judge';
import type { Zone } from '../store';
import type { CustomFieldValues } from './custom-fields';
import type { JobOutput, TimestampFormat } from './job-output';

export const LOG_DATASET = 'http_requests';

/** What a live request adds to what a simulation knows. */
export interface LiveFacts {
  endTimestampMs: number;
  clientPort: number | undefined;
  /** The edge's data centre, as `cf-ray` names it. */
  colo: string;
  /** Bytes of the answer's body, when its length was declared. */
  responseBodyBytes: number | undefined;
  /** Milliseconds the origin took to answer its head; undefined when not asked (or a worker answered). */
  originDurationMs: number | undefined;
  /** The worker script that answered, when a route sent the request to one. */
  workerScriptName: string | undefined;
}

export interface LoggedRequest {
  zone: Pick<Zone, 'name'>;
  request: EdgeRequest;
  /** The rules-language context (fields the platform knows beside the request are read from it). */
  context: Readonly<Record<string, ContextValue>>;
  outcome: FinalOutcome;
  /** Content type of the edge's own answer (a block, a challenge, an error page); null when the origin's went through. */
  edgeContentType: string | null;
  /** Whether the request was passed on to the origin (or a worker). */
  reachedOrigin: boolean;
  /** What the origin answered, when it was asked and answered (a simulation knows it when described). */
  originResponse: ResponseHead | undefined;
  matched: readonly RuleLocation[];
  custom: CustomFieldValues;
  live?: LiveFacts;
}

export interface LogEntry {
  entry: Record<string, unknown>;
  /** Selected fields nothing here can know (they answer null in the entry). */
  unavailable: string[];
}

type Derive = (inputs: LoggedRequest) => unknown;

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
  ClientSrcPort: ({ live }) => live?.clientPort,
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
  EdgeColoCode: ({ live }) => live?.colo,
  EdgeRequestHost: ({ request }) => request.target.host,
  EdgeResponseBodyBytes: ({ live }) => live?.responseBodyBytes,
  EdgeResponseContentType: responseContentType,
  EdgeResponseStatus: ({ outcome }) => outcome.status ?? undefined,
  EdgeServerIP: field('cf.edge.server_ip'),
  JA3Hash: field('cf.bot_management.ja3_hash'),
  JA4: field('cf.bot_management.ja4'),
  OriginResponseDurationMs: ({ live, reachedOrigin }) => (reachedOrigin ? live?.originDurationMs : live && 0),
  OriginResponseStatus: ({ originResponse, reachedOrigin }) => (reachedOrigin ? originResponse?.status : 0),
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
  WorkerScriptName: ({ live }) => live && (live.workerScriptName ?? ''),
  ZoneName: ({ zone }) => zone.name,
};

/** The entry a job with this output gets for the request. */
export function logEntry(output: JobOutput, inputs: LoggedRequest): LogEntry {
  const entry: Record<string, unknown> = {};
  const unavailable: string[] = [];
  for (const name of output.fields) {
    const value =
      name === 'EdgeStartTimestamp'
        ? formatTime(inputs.request.timestampMs, output.timestamps)
        : name === 'EdgeEndTimestamp'
          ? formatTime(inputs.live?.endTimestampMs ?? inputs.request.timestampMs, output.timestamps)
          : DERIVATIONS[name]?.(inputs);
    if (value === undefined) unavailable.push(name);
    entry[name] = value ?? null;
  }
  return { entry, unavailable };
}

/** A blocked or challenged request gets the edge's own answer; otherwise the origin's content type. */
function responseContentType({ edgeContentType, originResponse }: LoggedRequest): string | undefined {
  if (edgeContentType !== null) return edgeContentType;
  return originResponse ? (headerValues(originResponse.headers, 'content-type')[0] ?? '') : undefined;
}

/** The request's size on the wire in HTTP/1.1 form: request line, header lines, blank line, body. */
function requestBytes(request: EdgeRequest): number {
  const uri = `${request.target.rawPath}${request.target.rawQuery === null ? '' : `?${request.target.rawQuery}`}`;
  const head = [`${request.method} ${uri} HTTP/1.1`, ...request.headers.map(([name, value]) => `${name}: ${value}`)].join('\r\n');
  return Buffer.byteLength(`${head}\r\n\r\n`) + request.bodySize;
}

/** Timestamps as the job's `timestamps` option asks; nanoseconds exceed a JSON-safe number, so they are a string. */
function formatTime(ms: number, format: TimestampFormat): string | number {
  if (format === 'rfc3339') return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  if (format === 'unix') return Math.floor(ms / 1000);
  return (BigInt(ms) * 1_000_000n).toString();
}
