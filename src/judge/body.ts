/** The `http.request.body.*` fields: the raw body as inspected, its form or multipart parts. */
import { type HeaderLine, headerValues } from './request';
import { truncateUtf8 } from './text';
import type { ContextValue } from './trace';
import { splitPairs } from './url';

/** How much of a body the edge inspects (the Enterprise plan's allowance); the rest is not seen by rules. */
export const BODY_INSPECTION_LIMIT_BYTES = 128 * 1024;

type Fields = Record<string, ContextValue>;

export function bodyFields(body: string, size: number, headers: readonly HeaderLine[]): Fields {
  const inspected = truncateUtf8(body, BODY_INSPECTION_LIMIT_BYTES);
  const contentType = headerValues(headers, 'content-type')[0] ?? '';
  const mime = mediaType(contentType);
  const form = mime === 'application/x-www-form-urlencoded' ? splitPairs(inspected) : [];
  const boundary = mime === 'multipart/form-data' ? /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType) : null;
  const parts = boundary ? multipartParts(inspected, boundary[1] ?? boundary[2]!) : [];
  return {
    'http.request.body.raw': inspected,
    'http.request.body.size': size,
    'http.request.body.truncated': size > BODY_INSPECTION_LIMIT_BYTES,
    'http.request.body.mime': mime,
    'http.request.body.form': groupValues(form),
    'http.request.body.form.names': form.map(([name]) => name),
    'http.request.body.form.values': form.map(([, value]) => value),
    'http.request.body.multipart': groupValues(parts.flatMap((part) => part.names.map((name) => [name, part.value] as const))),
    'http.request.body.multipart.names': parts.map((part) => part.names),
    'http.request.body.multipart.values': parts.map((part) => part.value),
    'http.request.body.multipart.content_types': parts.map((part) => part.header('content-type')),
    'http.request.body.multipart.content_dispositions': parts.map((part) => part.header('content-disposition')),
    'http.request.body.multipart.content_transfer_encodings': parts.map((part) => part.header('content-transfer-encoding')),
    'http.request.body.multipart.filenames': parts.map((part) => part.filenames),
  };
}

/** `text/html; charset=utf-8` -> `text/html`. */
export function mediaType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/** Pairs grouped by name, values in order: the rules language's Map(Array(Bytes)). */
export function groupValues(pairs: readonly (readonly [string, string])[]): Record<string, string[]> {
  const map: Record<string, string[]> = {};
  for (const [name, value] of pairs) (Object.hasOwn(map, name) ? map[name]! : (map[name] = [])).push(value);
  return map;
}

interface Part {
  names: string[];
  filenames: string[];
  value: string;
  header(name: string): string[];
}

/** The parts of a multipart/form-data body (RFC 7578); text outside the delimiters is ignored. */
function multipartParts(body: string, boundary: string): Part[] {
  const delimiter = `--${boundary}`;
  const chunks = body.split(delimiter).slice(1);
  const parts: Part[] = [];
  for (const chunk of chunks) {
    if (chunk.startsWith('--')) break;
    const content = chunk.replace(/^\r?\n/, '');
    const end = /\r?\n\r?\n/.exec(content);
    const head = end ? content.slice(0, end.index) : content;
    const value = end ? content.slice(end.index + end[0].length).replace(/\r?\n$/, '') : '';
    const headers = head
      .split(/\r?\n/)
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')).trim(), line.slice(line.indexOf(':') + 1).trim()] as const);
    const dispositions = headerValues(headers, 'content-disposition');
    parts.push({
      names: dispositions.flatMap((d) => dispositionParameter(d, 'name')),
      filenames: dispositions.flatMap((d) => dispositionParameter(d, 'filename')),
      value,
      header: (name) => headerValues(headers, name),
    });
  }
  return parts;
}

function dispositionParameter(disposition: string, parameter: string): string[] {
  const match = new RegExp(`;\\s*${parameter}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]+))`, 'i').exec(disposition);
  if (!match) return [];
  return [match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]!];
}
