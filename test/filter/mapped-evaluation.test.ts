/**
 * Evaluation of the constructs the engine's grammar adds over plain
 * comparisons: functions over `[*]` (an array, indexed again), several `[*]`
 * in one path, Boolean arrays under any/all, and regexes of the engine's
 * dialect, against request contexts.
 */
import { describe, expect, it } from 'vitest';
import { type RequestContext, compile, parse } from '../../src/filter/index';

const UPLOAD: RequestContext = {
  'http.request.headers': { 'Content-Type': ['multipart/form-data'], 'X-Trace': ['a', 'B'] },
  'http.request.headers.names': ['Content-Type', 'X-Trace', 'X-Trace'],
  'http.request.body.form.values': ['hello', '%3Cscript%3Ealert(1)', 'an%20xss%20attack'],
  'http.request.body.multipart.filenames': [['cv.pdf'], ['SHELL.PHP', 'notes.txt'], []],
  'http.request.uri.path': '/Αθήνα/2024-05/report',
  'http.user_agent': 'curl/8.4.0',
  'http.request.uri.query': 'a=1&b=2',
  ssl: true,
};

/** A request without any of the collection fields. */
const BARE: RequestContext = { 'http.request.uri.path': '/', ssl: false };

function evaluate(expression: string, context: RequestContext): boolean {
  return compile(parse(expression)).evaluate(context);
}

/** [expression, result on the upload, result on the bare request] */
const CASES: ReadonlyArray<readonly [string, boolean, boolean]> = [
  ['any(lower(http.request.headers.names[*])[*] == "content-type")', true, false],
  ['any(http.request.headers.names[*] == "content-type")', false, false],
  ['all(lower(http.request.headers.names[*])[*] contains "-")', true, true],
  ['any(url_decode(http.request.body.form.values[*])[*] contains "an xss attack")', true, false],
  ['any(url_decode(http.request.body.form.values[*])[*] contains "<script")', true, false],
  ['any(http.request.body.form.values[*] contains "<script")', false, false],
  ['any(len(http.request.headers.names[*])[*] gt 10)', true, false],
  ['any(len(http.request.headers.names[*])[*] gt 12)', false, false],
  ['any(starts_with(http.request.headers.names[*], "X-"))', true, false],
  // an array of Booleans that is missing makes even all() false; a mapped comparison over nothing is vacuously true
  ['all(starts_with(http.request.headers.names[*], "X-"))', false, false],
  ['all(http.request.headers.names[*] ne "")', true, true],
  ['any(not starts_with(http.request.headers.names[*], "X-"))', true, false],
  // several [*]: every value of every header, every name of every upload
  ['any(http.request.headers[*][*] == "B")', true, false],
  ['any(http.request.body.multipart.filenames[*][*] == "notes.txt")', true, false],
  ['any(lower(http.request.body.multipart.filenames[*][0])[*] matches "\\.php$")', true, false],
  ['any(http.request.body.multipart.filenames[*][1] == "notes.txt")', true, false],
  ['all(http.request.body.multipart.filenames[*][0] ne "")', true, true],
  // spaces inside brackets read as without them
  ['any( http.request.headers[ "X-Trace" ][ * ] == "a" )', true, false],
  ['http.request.headers.names[ 1 ] eq "X-Trace"', true, false],
  // a condition with its own parentheses joins element-wise under any()
  ['any((http.request.headers.names[*] == "X-Trace" and http.request.headers.names[*] != "x"))', true, false],
  // regexes of the engine's dialect
  ['http.request.uri.path matches "(?u)^/\\p{Greek}+/"', true, false],
  ['http.request.uri.path matches "(?x) ^/ [^/]+ / \\d{4} - \\d{2}  # year-month"', true, false],
  ['http.request.uri.path matches "/\\d{ 4 }-"', true, false],
  ['http.user_agent matches "\\<curl\\>"', true, false],
  ['http.user_agent matches "\\b{start}url"', false, false],
  ['http.user_agent matches "[a-z&&[^aeiou]]{4}/"', false, false],
  ['http.user_agent matches "^[a-z--[aeiou]]ur[[:alpha:]]/"', true, false],
  ['http.user_agent matches "\\u{63}url"', true, false],
  ['http.user_agent matches "(?i)CURL"', true, false],
  ['http.user_agent matches "c**url"', true, false],
];

describe('evaluation of mapped functions, nested [*] and dialect regexes', () => {
  it.each(CASES)('%s', (expression, onUpload, onBare) => {
    expect([evaluate(expression, UPLOAD), evaluate(expression, BARE)]).toEqual([onUpload, onBare]);
  });
});

describe('values of functions over [*]', () => {
  it('pass the array of results to an enclosing function', () => {
    expect(evaluate('join(lower(http.request.headers.names[*]), ",") eq "content-type,x-trace,x-trace"', UPLOAD)).toBe(true);
    expect(evaluate('len(lower(http.request.headers.names[*])) eq 3', UPLOAD)).toBe(true);
  });

  it('are missing, not empty, when the mapped field is missing', () => {
    expect(evaluate('len(lower(http.request.headers.names[*])) eq 0', BARE)).toBe(false);
    expect(evaluate('len(lower(http.request.headers.names[*])) eq 0', { 'http.request.headers.names': [] })).toBe(true);
  });

  it('fold to true under all() when present but empty, to false when missing', () => {
    const expression = 'all(starts_with(http.request.headers.names[*], "X-"))';
    expect(evaluate(expression, { 'http.request.headers.names': [] })).toBe(true);
    expect(evaluate(expression, BARE)).toBe(false);
  });

  it('index like any array', () => {
    expect(evaluate('lower(http.request.headers.names[*])[0] eq "content-type"', UPLOAD)).toBe(true);
    expect(evaluate('lower(http.request.headers.names[*])[7] eq "content-type"', UPLOAD)).toBe(false);
  });
});
