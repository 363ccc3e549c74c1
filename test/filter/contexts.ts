import type { RequestContext } from '../../src/filter/index';

/** An ordinary browser request. */
export const BROWSER: RequestContext = {
  'http.host': 'www.example.com',
  'http.request.method': 'GET',
  'http.request.uri.path': '/products/shoes',
  'http.request.uri.query': 'color=red&utm_source=news',
  'http.request.full_uri': 'https://www.example.com/products/shoes?color=red&utm_source=news',
  'http.user_agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64)',
  'http.request.headers': {
    host: ['www.example.com'],
    accept: ['text/html', 'application/xhtml+xml'],
    'accept-language': ['en-GB'],
  },
  'http.request.headers.names': ['host', 'accept', 'accept', 'accept-language'],
  'http.request.headers.values': ['www.example.com', 'text/html', 'application/xhtml+xml', 'en-GB'],
  'http.request.cookies': { session: ['abc123'] },
  'ip.src': '198.51.100.23',
  'ip.src.country': 'GB',
  'ip.src.asnum': 64500,
  'cf.threat_score': 3,
  'cf.bot_management.score': 87,
  'cf.bot_management.verified_bot': false,
  'http.request.timestamp.sec': 1700000000,
  ssl: true,
  true: true,
};

/** A scanner probing an admin endpoint over IPv6. */
export const ATTACK: RequestContext = {
  'http.host': 'Admin.Example.com',
  'http.request.method': 'POST',
  'http.request.uri.path': '/wp-admin/admin-ajax.php',
  'http.request.uri.query': 'q=%3Cscript%3Ealert(1)%3C%2Fscript%3E',
  'http.request.body.raw': '{"user":{"name":"root","id":0},"items":[5,7]}',
  'http.request.headers': { 'x-forwarded-for': ['10.0.0.1'], 'user-agent': ['sqlmap/1.7'] },
  'http.request.headers.names': ['x-forwarded-for', 'user-agent'],
  'http.user_agent': 'sqlmap/1.7',
  'ip.src': '2001:db8::dead:beef',
  'ip.src.asnum': 64511,
  'cf.threat_score': 75,
  'cf.bot_management.detection_ids': [10, 42],
  ssl: false,
  true: true,
};
