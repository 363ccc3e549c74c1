/**
 * Fields of the `http_requests` log dataset that a log push job may select. `RequestHeaders`,
 * `ResponseHeaders` and `Cookies` carry the zone's custom log fields.
 */
export const HTTP_REQUESTS_FIELDS = [
  'BotDetectionIDs', 'BotScore', 'BotScoreSrc', 'BotTags', 'CacheCacheStatus', 'CacheReserveUsed',
  'CacheResponseBytes', 'CacheResponseStatus', 'CacheTieredFill', 'ClientASN', 'ClientCountry',
  'ClientDeviceType', 'ClientIP', 'ClientIPClass', 'ClientMTLSAuthCertFingerprint', 'ClientMTLSAuthStatus',
  'ClientRegionCode', 'ClientRequestBytes', 'ClientRequestHost', 'ClientRequestMethod', 'ClientRequestPath',
  'ClientRequestProtocol', 'ClientRequestReferer', 'ClientRequestScheme', 'ClientRequestSource',
  'ClientRequestURI', 'ClientRequestUserAgent', 'ClientSSLCipher', 'ClientSSLProtocol', 'ClientSrcPort',
  'ClientTCPRTTMs', 'ClientXRequestedWith', 'ContentScanObjResults', 'ContentScanObjTypes', 'Cookies',
  'EdgeCFConnectingO2O', 'EdgeColoCode', 'EdgeColoID', 'EdgeEndTimestamp', 'EdgePathingOp',
  'EdgePathingSrc', 'EdgePathingStatus', 'EdgeRequestHost', 'EdgeResponseBodyBytes', 'EdgeResponseBytes',
  'EdgeResponseCompressionRatio', 'EdgeResponseContentType', 'EdgeResponseStatus', 'EdgeServerIP',
  'EdgeStartTimestamp', 'EdgeTimeToFirstByteMs', 'JA3Hash', 'JA4', 'LeakedCredentialCheckResult',
  'OriginDNSResponseTimeMs', 'OriginIP', 'OriginRequestHeaderSendDurationMs', 'OriginResponseBytes',
  'OriginResponseDurationMs', 'OriginResponseHTTPExpires', 'OriginResponseHTTPLastModified',
  'OriginResponseHeaderReceiveDurationMs', 'OriginResponseStatus', 'OriginResponseTime',
  'OriginSSLProtocol', 'OriginTCPHandshakeDurationMs', 'OriginTLSHandshakeDurationMs', 'ParentRayID',
  'RayID', 'RequestHeaders', 'ResponseHeaders', 'SecurityAction', 'SecurityActions', 'SecurityRuleDescription',
  'SecurityRuleID', 'SecurityRuleIDs', 'SecuritySources', 'SmartRouteColoID', 'UpperTierColoID',
  'WAFAttackScore', 'WAFFlags', 'WAFMatchedVar', 'WAFRCEAttackScore', 'WAFSQLiAttackScore',
  'WAFXSSAttackScore', 'WorkerCPUTime', 'WorkerScriptName', 'WorkerStatus', 'WorkerSubrequest',
  'WorkerSubrequestCount', 'WorkerWallTimeUs', 'ZoneName',
] as const;

export const CUSTOM_FIELD_GROUPS = ['RequestHeaders', 'ResponseHeaders', 'Cookies'] as const;
