import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { malformedXml } from './errors';

const NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', suppressEmptyNode: false });

/** An XML element's content: text, nested elements, or repeated elements as an array. */
export type XmlValue = string | number | boolean | XmlElement | XmlElement[] | string[] | undefined;
export interface XmlElement {
  [name: string]: XmlValue;
}

/** An S3 response document: `root` in the S3 namespace holding `content`. */
export function xmlDocument(root: string, content: XmlElement, namespaced = true): string {
  const element = namespaced ? { '@_xmlns': NAMESPACE, ...withoutUndefined(content) } : withoutUndefined(content);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build({ [root]: element })}`;
}

function withoutUndefined(content: XmlElement): XmlElement {
  return Object.fromEntries(Object.entries(content).filter(([, value]) => value !== undefined));
}

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: false,
  removeNSPrefix: true,
  isArray: (name) => name === 'Part' || name === 'Object',
});

/**
 * Parses a request document whose root must be `root`. Malformed text, another root or a
 * document type declaration (entities are never expanded) is MalformedXML.
 */
export function parseXmlBody(text: string, root: string): Record<string, unknown> {
  if (text.trim() === '') throw malformedXml(`the request body is empty; a ${root} document is required.`);
  if (/<!DOCTYPE/i.test(text)) throw malformedXml('document type declarations are not accepted.');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw malformedXml(`${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col}).`);
  const document = parser.parse(text) as Record<string, unknown>;
  const element = document[root] === '' ? {} : document[root];
  if (element === undefined || typeof element !== 'object' || element === null) {
    throw malformedXml(`the root element must be ${root}.`);
  }
  return element as Record<string, unknown>;
}
