/**
 * A zone's origin behind the edge: the table of origins the platform file names
 * (`[[edge.origins]]`, hostname to upstream URL, with the platform's waits: 15 s to connect, 100 s
 * for an answer), and `proxyToOrigin`, which passes a request on with the headers the platform adds
 * and answers the platform's pages (520, 521, 522, 524) when the origin fails.
 */
export { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_RESPONSE_TIMEOUT_MS, OriginTable, originProblem, type Origin, type OriginInput } from './origins';
export { proxyToOrigin, writePage, type ProxyInput, type ProxyOutcome } from './proxy';
