// The contract tests that do not pass under Miniflare, by title, each with its row in docs/buckets-and-workers.md
// (section "Allowed differences from the platform") that explains it. Two kinds:
// - 'proxy cannot call': Miniflare's bucket is driven from Node through its proxy, which cannot
//   carry the call (a Headers argument, a stream with a known length, a byte stream, a settable
//   clock or a compatibility date per bucket). Skipped; the HTTP differential suite covers these
//   calls from inside the worker instead.
// - 'differs': the two implementations answer differently; defined as failing under Miniflare,
//   so that the day they agree the entry must go.

export interface MiniflareDifference {
  kind: 'proxy cannot call' | 'differs';
  /** The docs row: the text of its first column, without backquotes. */
  row: string;
}

const proxy = (row: string): MiniflareDifference => ({ kind: 'proxy cannot call', row });
const differs = (row: string): MiniflareDifference => ({ kind: 'differs', row });

const CLOCK = proxy('settable clock');
const HEADERS = proxy('Headers arguments, writeHttpMetadata(headers)');
const STREAMS = proxy('streams and Blobs from Node');
const BODIES = proxy('bodies read from Node');
const DATES = proxy('compatibility date per bucket');
const STRICTER = differs('argument checking');

export const MINIFLARE_DIFFERENCES: Record<string, MiniflareDifference> = {
  // conditions.test.ts: the object is uploaded at a set time, to compare dates against.
  'etagMatches compares strongly; * matches any object': CLOCK,
  'etagDoesNotMatch passes when the etag differs': CLOCK,
  'uploadedBefore and uploadedAfter compare strictly': CLOCK,
  'secondsGranularity floors both dates to seconds first': CLOCK,
  'a passing etag condition makes the matching date condition irrelevant (RFC 7232)': CLOCK,
  'a failed condition answers the metadata without a body': CLOCK,
  'bad conditions are argument errors': CLOCK,
  'If-Match takes a list of strong tags or *; weak tags never match it': CLOCK,
  'If-None-Match compares weakly and takes *': CLOCK,
  'If-Modified-Since and If-Unmodified-Since compare in whole seconds': CLOCK,
  'RFC 7232 precedence: If-None-Match decides over If-Modified-Since, If-Match over If-Unmodified-Since': CLOCK,
  'an unparsable date is ignored and If-Range is not supported': CLOCK,
  'a malformed tag list is a plain Error with the platform message': CLOCK,
  'a failed condition stores nothing and answers null': CLOCK,
  'on a missing key etagMatches and uploadedAfter fail, etagDoesNotMatch and uploadedBefore pass': CLOCK,
  'a failed condition releases a stream value without reading it': CLOCK,
  'etagDoesNotMatch * creates only if absent, as does If-None-Match: *': HEADERS,
  // known-length.test.ts
  'put and uploadPart refuse them before reading a byte, and store nothing': STREAMS,
  'the readable half of a FixedLengthStream has a known length': STREAMS,
  'the body of a read has a known length: it is stored again as it is, whole or ranged': BODIES,
  'a FixedLengthStream that gets fewer or more bytes than announced fails the put': STREAMS,
  'a length beyond what a single put takes is refused before reading': STREAMS,
  'before 2025-12-03 a range has offset and length only': DATES,
  'from 2025-12-03 (enable_fast_jsg_struct) it also carries suffix: undefined, unless the flag is disabled': DATES,
  // list.test.ts
  'listed objects carry their metadata fields': differs('listed objects'),
  'is a whole number from 1 to 1000': STRICTER,
  'an unknown cursor yields an empty page, not an error': differs('unknown list cursor'),
  'options of the wrong type are argument errors': STRICTER,
  'is honoured from the compatibility date 2022-08-04: metadata only when named': DATES,
  'is honoured when no date is given': differs('include leaves out httpMetadata'),
  'before 2022-08-04 both kinds are listed whatever include says': DATES,
  'the list-honour-include flag honours it before that date': DATES,
  'writing HTTP metadata that was not listed is an argument error': HEADERS,
  'unknown values are a RangeError': STRICTER,
  'a page holds fewer entries than its limit when the metadata is large; looping gets all': differs('custom metadata size'),
  // objects.test.ts
  'answers the stored metadata in the platform format': CLOCK,
  'stores every kind of value byte for byte': STREAMS,
  'an erroring stream rejects the put and leaves the previous object': STREAMS,
  'refuses values that are not bytes': STRICTER,
  'refuses a value larger than a single put may be (5 GiB - 5 MiB)': STREAMS,
  'refuses options that are not an object, and storage classes other than Standard': STRICTER,
  'httpMetadata as an object is stored and written back as headers': HEADERS,
  'httpMetadata as request Headers takes the content headers and Expires': HEADERS,
  'httpMetadata given on a read overrides the stored fields in that result only': differs('httpMetadata given to get()'),
  'custom metadata is kept up to 8,192 bytes of keys plus values': differs('custom metadata size'),
  'bad metadata is refused before anything is stored': STRICTER,
  'a %s body is a byte stream: a BYOB reader reuses its own buffer, also after a default read': BODIES,
  'refuses keys that are not strings': STRICTER,
  'are strings of at most 1024 bytes of UTF-8; the empty key is valid': STRICTER,
  // ranges.test.ts
  'negative or fractional numbers are RangeErrors; suffix with offset or length a TypeError': STRICTER,
  '%s serves %s': HEADERS,
  'the malformed or multiple range %s is ignored: the whole object is served': HEADERS,
  'Headers without Range serve the whole object': HEADERS,
  '%s is unsatisfiable (10039)': HEADERS,
};
