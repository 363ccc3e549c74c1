import { XMLBuilder } from 'fast-xml-parser';
import { SaxesParser } from 'saxes';
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

/** A request document's element: its text when it has no child elements, else its children. */
export type ParsedValue = string | ParsedElement;
export interface ParsedElement {
  [name: string]: ParsedValue | ParsedValue[];
}

/**
 * Elements that may repeat in request documents (Delete's Object, CompleteMultipartUpload's Part,
 * the rules of CORS and lifecycle configurations and their lists).
 */
const REPEATED = new Set(['Part', 'Object', 'CORSRule', 'AllowedMethod', 'AllowedOrigin', 'AllowedHeader', 'ExposeHeader', 'Rule', 'Transition']);

interface Open {
  name: string;
  text: string;
  children: ParsedElement;
  hasChildren: boolean;
}

/** The local name: request documents may prefix the S3 namespace (`<s3:Part>`). */
const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/**
 * Parses a request document whose root must be `root`, as XML 1.0 defines it (saxes, a
 * conforming parser): character references (`&#34;`, `&#x27;`) and the five predefined entities
 * are decoded, CDATA is text, anything not well-formed is refused. A document type declaration
 * is refused too, so no entity of the client's own is ever expanded. Failures are MalformedXML.
 */
export function parseXmlBody(text: string, root: string): ParsedElement {
  if (text.trim() === '') throw malformedXml(`the request body is empty; a ${root} document is required.`);
  const parser = new SaxesParser();
  const stack: Open[] = [];
  let document: Open | undefined;
  let failure: string | undefined;
  parser.on('error', (error) => {
    failure ??= error.message;
  });
  parser.on('doctype', () => {
    failure ??= 'document type declarations are not accepted.';
  });
  parser.on('opentag', (tag) => {
    stack.push({ name: localName(tag.name), text: '', children: {}, hasChildren: false });
  });
  const addText = (value: string) => {
    const top = stack[stack.length - 1];
    if (top) top.text += value;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const element = stack.pop()!;
    const parent = stack[stack.length - 1];
    if (!parent) {
      document = element;
      return;
    }
    const value: ParsedValue = element.hasChildren ? element.children : element.text;
    parent.hasChildren = true;
    if (REPEATED.has(element.name)) {
      const list = parent.children[element.name];
      if (Array.isArray(list)) list.push(value);
      else parent.children[element.name] = [value];
    } else if (!(element.name in parent.children)) {
      parent.children[element.name] = value;
    }
  });
  try {
    parser.write(text).close();
  } catch (error) {
    failure ??= (error as Error).message;
  }
  if (failure !== undefined) throw malformedXml(failure);
  if (document?.name !== root) throw malformedXml(`the root element must be ${root}.`);
  return document.children;
}
