/**
 * The pages the edge answers with itself, in HTML as a browser gets them: a request the rules
 * block (403) or challenge (403, `cf-mitigated: challenge`; a client here never solves one), an
 * origin that fails (520-524), a request the edge cannot take (400, 413, 414, 431) or could not
 * judge (500). Each names the status, what happened, the hostname and the ray id, which finds
 * the request's log entry.
 */

export type EdgePageName = keyof typeof PAGES;

/** Status, title and explanation of each page. */
const PAGES = {
  blocked: { status: 403, title: 'Sorry, you have been blocked', text: 'This website uses a security service to protect itself from online attacks. The action you just performed triggered a rule of that service.' },
  challenge: { status: 403, title: 'Just a moment...', text: 'Checking that you are not a robot. This client cannot complete the check: it takes a browser with JavaScript and cookies.' },
  unknownOriginError: { status: 520, title: 'Web server is returning an unknown error', text: 'The origin web server answered with something that is not an HTTP response, or closed the connection without answering.' },
  originDown: { status: 521, title: 'Web server is down', text: 'The origin web server refused the connection.' },
  originConnectTimeout: { status: 522, title: 'Connection timed out', text: 'The origin web server did not accept the connection in time.' },
  originUnreachable: { status: 523, title: 'Origin is unreachable', text: 'The edge has no route to the origin web server.' },
  originTimeout: { status: 524, title: 'A timeout occurred', text: 'The origin web server accepted the connection but did not answer in time.' },
  badRequest: { status: 400, title: 'Bad Request', text: 'The request is not valid HTTP.' },
  bodyTooLarge: { status: 413, title: 'Request Entity Too Large', text: 'The request body is larger than this zone accepts.' },
  uriTooLong: { status: 414, title: 'Request-URI Too Large', text: 'The request URL is longer than the edge accepts.' },
  headersTooLarge: { status: 431, title: 'Request Header Fields Too Large', text: 'The request headers are larger than the edge accepts.' },
  notJudged: { status: 500, title: 'Internal Server Error', text: 'The edge could not evaluate the rules that protect this website, so the request was not let through.' },
} as const;

export function pageStatus(name: EdgePageName): number {
  return PAGES[name].status;
}

export interface PageFacts {
  /** The hostname the client asked for ('' when unknown). */
  host: string;
  rayId: string;
  /** When the page is answered (epoch milliseconds). */
  at: number;
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (text: string) => text.replace(/[&<>"']/g, (char) => escapes[char]!);

/** The page as HTML (UTF-8). */
export function pageHtml(name: EdgePageName, facts: PageFacts): string {
  const { status, title, text } = PAGES[name];
  const host = escape(facts.host);
  const heading = status === 403 ? title : `Error ${status}: ${title}`;
  const time = new Date(facts.at).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="UTF-8"><meta name="robots" content="noindex, nofollow">',
    `<title>${host ? `${host} | ` : ''}${status}: ${escape(title)}</title></head>`,
    '<body>',
    `<h1>${escape(heading)}</h1>`,
    host ? `<h2>${status === 403 ? `You are unable to access ${host}` : host}</h2>` : '',
    `<p>${escape(text)}</p>`,
    `<p>Error code ${status} &middot; Ray ID: <code>${escape(facts.rayId)}</code> &middot; ${time}</p>`,
    '</body></html>',
    '',
  ].join('\n');
}
