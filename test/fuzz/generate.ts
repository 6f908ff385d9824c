import type { Credentials, UserCredentials } from './credentials.js';
import {
  B64URL,
  PRINTABLE,
  PATHS,
  METHODS,
  ODD_METHODS,
  GRAPHQL_QUERIES,
  TRPC_CALLS,
  TRPC_BODIES,
  mutatePath,
  mutateText,
  respell,
} from './payloads.js';
import type { Random } from './random.js';

/** One request of the fuzzer, as raw bytes. */
export interface FuzzRequest {
  /** What produced it (for the report). */
  readonly kind: string;
  readonly raw: Buffer;
  /** A HEAD request: the response has no body. */
  readonly head: boolean;
  /**
   * The client asks for the connection to be closed without an answer: a `CONNECT`
   * (node closes a tunnel request when no `connect` listener is set).
   */
  readonly mayCloseSilently?: boolean;
}

/** Builds random raw requests against the example's routes with the users' credentials. */
export class RequestGenerator {
  readonly #random: Random;
  readonly #users: readonly UserCredentials[];
  readonly #host: string;
  readonly #cookieName: string;

  constructor(random: Random, credentials: Credentials, host: string) {
    this.#random = random;
    this.#users = [...credentials.values()];
    this.#host = host;
    const first = this.#users[0];
    this.#cookieName = first
      ? first.sessionCookie.slice(0, first.sessionCookie.indexOf('='))
      : 'session';
  }

  next(): FuzzRequest {
    const r = this.#random;
    const kind = r.weighted<string>([
      [30, 'route'],
      [15, 'trpc'],
      [15, 'graphql'],
      [8, 'token-endpoints'],
      [5, 'form-login'],
      [10, 'headers'],
      [7, 'request-line'],
      [5, 'framing'],
      [5, 'bytes'],
    ]);
    switch (kind) {
      case 'trpc':
        return this.#trpc();
      case 'graphql':
        return this.#graphql();
      case 'token-endpoints':
        return this.#tokenEndpoint();
      case 'form-login':
        return this.#formLogin();
      case 'headers':
        return this.#headers();
      case 'request-line':
        return this.#requestLine();
      case 'framing':
        return this.#framing();
      case 'bytes':
        return this.#bytes();
      default:
        return this.#route();
    }
  }

  // --- the kinds of request ---

  #route(): FuzzRequest {
    const r = this.#random;
    const method = r.pick(METHODS);
    const path = r.chance(0.5) ? mutatePath(this.#random, r.pick(PATHS)) : r.pick(PATHS);
    const body =
      ['POST', 'PUT', 'PATCH'].includes(method) && r.chance(0.7) ? this.#anyBody() : undefined;
    return this.#build(
      'route',
      method,
      path,
      [...this.#credentialHeaders(), ...this.#commonHeaders()],
      body,
    );
  }

  #trpc(): FuzzRequest {
    const r = this.#random;
    const [method, target] = r.pick(TRPC_CALLS);
    const path = r.chance(0.2) ? mutatePath(this.#random, target) : target;
    const headers: [string, string][] = [...this.#credentialHeaders(), ...this.#commonHeaders()];
    let body: string | undefined;
    if (method === 'POST') {
      body = r.pick(TRPC_BODIES);
      headers.push([
        'Content-Type',
        r.pick([
          'application/json',
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
        ]),
      ]);
    }
    return this.#build('trpc', method, path, headers, body);
  }

  #graphql(): FuzzRequest {
    const r = this.#random;
    const query = r.chance(0.9)
      ? r.pick(GRAPHQL_QUERIES)
      : mutateText(this.#random, r.pick(GRAPHQL_QUERIES));
    const headers: [string, string][] = [...this.#credentialHeaders(), ...this.#commonHeaders()];
    if (r.chance(0.25)) {
      const target = `/graphql?query=${encodeURIComponent(query)}${r.chance(0.3) ? '&variables=%7B' : ''}`;
      return this.#build('graphql', 'GET', target, [
        ...headers,
        ['Accept', 'application/graphql-response+json'],
      ]);
    }
    const payload = r.weighted<string>([
      [6, JSON.stringify({ query })],
      [
        1,
        JSON.stringify({
          query,
          variables: { t: 'x' },
          operationName: r.pick(['Q', 'nope', null]),
        }),
      ],
      [1, JSON.stringify([{ query }, { query }])],
      [1, JSON.stringify({ query: 1 })],
      [
        1,
        JSON.stringify({ query, extensions: { persistedQuery: { version: 1, sha256Hash: 'x' } } }),
      ],
      [1, `{"query":${JSON.stringify(query)}`],
      [1, '['.repeat(2000) + ']'.repeat(2000)],
    ]);
    headers.push([
      'Content-Type',
      r.pick([
        'application/json',
        'application/json; charset=utf-8',
        'application/graphql',
        'text/plain',
        'application/json; charset=latin1',
      ]),
    ]);
    return this.#build('graphql', r.chance(0.95) ? 'POST' : 'PUT', '/graphql', headers, payload);
  }

  #tokenEndpoint(): FuzzRequest {
    const r = this.#random;
    const user = r.pick(this.#users);
    const other = r.pick(this.#users);
    const refresh = r.chance(0.5);
    let body: string;
    if (refresh) {
      const token = r.chance(0.6) ? user.refreshToken : respell(this.#random, user.refreshToken);
      body = r.pick([
        JSON.stringify({ refresh_token: token }),
        JSON.stringify({ refresh_token: user.accessToken }),
        JSON.stringify({ refresh_token: [token] }),
        `{"refresh_token":"${token}","refresh_token":"${other.refreshToken}"}`,
      ]);
    } else {
      body = r.pick([
        JSON.stringify({ username: user.username, password: user.password }),
        JSON.stringify({ username: user.username, password: other.password }),
        JSON.stringify({ username: user.username.toUpperCase(), password: 'x' }),
        JSON.stringify({ username: `${user.username}\u0000`, password: 'x' }),
        JSON.stringify({ username: ['admin'], password: { $ne: 1 } }),
        JSON.stringify({ username: 'admin', password: 'x'.repeat(5000) }),
        '{"username":"admin","password":"admin-passwor',
      ]);
    }
    const headers: [string, string][] = [
      [
        'Content-Type',
        r.pick([
          'application/json',
          'application/json',
          'text/plain',
          'application/json; charset=utf-16',
        ]),
      ],
      ...(r.chance(0.3) ? this.#credentialHeaders() : []),
      ...this.#commonHeaders(),
    ];
    return this.#build(
      'token-endpoints',
      'POST',
      refresh ? '/auth/refresh' : '/auth/login',
      headers,
      body,
    );
  }

  #formLogin(): FuzzRequest {
    const r = this.#random;
    const user = r.pick(this.#users);
    const body = new URLSearchParams({
      username: user.username,
      password: r.chance(0.5) ? user.password : 'wrong',
      _csrf: r.string(B64URL, 43),
      ...(r.chance(0.5)
        ? {
            continue: r.pick([
              '/me',
              '//evil.example',
              'https://evil.example/',
              '/\\evil',
              '/me%0d%0aX: y',
            ]),
          }
        : {}),
    }).toString();
    const headers: [string, string][] = [
      ['Content-Type', 'application/x-www-form-urlencoded'],
      ...(r.chance(0.5)
        ? ([
            ['Origin', `http://${this.#host}`],
            ['Sec-Fetch-Site', 'same-origin'],
          ] as [string, string][])
        : []),
      ...this.#credentialHeaders(),
      ['Accept', 'text/html'],
    ];
    return this.#build('form-login', 'POST', r.pick(['/login', '/logout']), headers, body);
  }

  /** Odd, duplicated and conflicting headers on an ordinary request. */
  #headers(): FuzzRequest {
    const r = this.#random;
    const a = r.pick(this.#users);
    const b = r.pick(this.#users);
    const candidates: [string, string][][] = [
      [
        ['Authorization', `Basic ${a.basic}`],
        ['Authorization', `Basic ${b.basic}`],
      ],
      [
        ['Authorization', `Basic ${a.basic}`],
        ['Authorization', `Bearer ${b.accessToken}`],
      ],
      [['Authorization', `Bearer ${a.accessToken}, Basic ${b.basic}`]],
      [
        ['Authorization', `Bearer ${a.accessToken}`],
        ['Cookie', b.sessionCookie],
      ],
      [
        ['Cookie', a.sessionCookie],
        ['Cookie', b.sessionCookie],
      ],
      [['Cookie', `${a.sessionCookie}; ${b.sessionCookie}`]],
      [['Cookie', `${this.#cookieName}=; ${a.sessionCookie}`]],
      [['Cookie', `${this.#cookieName}="${a.sessionCookie.slice(this.#cookieName.length + 1)}"`]],
      [
        ['Host', this.#host],
        ['Host', 'evil.example'],
      ],
      [
        [
          'Host',
          r.pick([
            'a@b',
            'user:pw@evil',
            '\u00ff\u00fe',
            'h\u00e9st',
            '[::1',
            '[::1]:x',
            'a b',
            '',
            'localhost:99999',
            '..',
            'a/b',
            '%41',
          ]),
        ],
      ],
      [
        ['X-Forwarded-For', '1.2.3.4'],
        ['X-Forwarded-Host', 'evil.example'],
        ['X-Forwarded-Proto', 'https'],
      ],
      [
        ['X-HTTP-Method-Override', 'DELETE'],
        ['X-Original-URL', '/admin'],
      ],
      [
        ['Authorization', 'Basic'],
        ['Authorization', 'Bearer'],
      ],
      [['Authorization', `${r.pick(['basic', 'BASIC', 'Basic  ', 'Basic\t'])} ${a.basic}`]],
      [
        ['Authorization', `Bearer ${a.accessToken}`],
        ['Authorization', `Bearer ${a.accessToken}`],
      ],
      [
        ['Origin', 'https://evil.example'],
        ['Access-Control-Request-Method', 'POST'],
        ['Access-Control-Request-Headers', 'authorization'],
      ],
      [
        ['Content-Type', 'application/json'],
        ['Content-Type', 'text/plain'],
      ],
      [
        ['Accept', 'text/html'],
        ['Sec-Fetch-Mode', 'navigate'],
        ['Sec-Fetch-Dest', 'document'],
      ],
      [[r.string(PRINTABLE, 1 + r.int(20)), r.string(PRINTABLE, r.int(40))]],
      [['X-Long', 'a'.repeat(r.pick([100, 8000, 20000, 70000]))]],
    ];
    const extra = r.pick(candidates);
    const method = r.pick(['GET', 'GET', 'POST', 'OPTIONS', 'HEAD']);
    const path = r.pick(PATHS);
    const hasHost = extra.some(([name]) => name === 'Host');
    const body =
      method === 'POST'
        ? r.pick(['{}', JSON.stringify({ query: '{ profile { username } }' }), '{"title":"x"}'])
        : undefined;
    return this.#build('headers', method, path, [...extra, ...this.#commonHeaders(!hasHost)], body);
  }

  /** Odd request lines: versions, targets, spacing. */
  #requestLine(): FuzzRequest {
    const r = this.#random;
    const method = r.chance(0.5) ? r.pick(ODD_METHODS) : r.pick(METHODS);
    const path = r.pick(PATHS);
    const target = r.pick([
      path,
      `http://${this.#host}${path}`,
      `http://evil.example${path}`,
      '*',
      `${path}?${r.string(PRINTABLE.replace(' ', ''), r.int(30))}`,
      `${path}#x`,
      path.replace('/', '\\'),
      `${path}\u00ff`,
      `${path} ${path}`,
      '',
      '/'.repeat(r.pick([2, 100, 5000])),
      `/${'%2e%2e/'.repeat(10)}admin`,
      `/${'a/'.repeat(2000)}`,
    ]);
    const version = r.pick([
      'HTTP/1.1',
      'HTTP/1.1',
      'HTTP/1.0',
      'HTTP/2.0',
      'HTTP/0.9',
      'http/1.1',
      'HTTP/1.1 ',
      '',
      'HTTP/1.10',
    ]);
    const line = `${method} ${target}${version === '' ? '' : ` ${version}`}`;
    const headers = [...this.#credentialHeaders(), ...this.#commonHeaders()];
    return {
      ...this.#finish('request-line', method === 'HEAD', line, headers, undefined),
      mayCloseSilently: method === 'CONNECT',
    };
  }

  /** Bodies framed oddly: chunked, chunked with Content-Length, Expect, a body on GET. */
  #framing(): FuzzRequest {
    const r = this.#random;
    const body = r.pick([
      JSON.stringify({ query: '{ profile { username } }' }),
      JSON.stringify({ username: 'admin', password: 'x' }),
      '{"title":"x"}',
    ]);
    const path = r.pick([
      '/graphql',
      '/auth/login',
      '/trpc/posts.create',
      '/posts',
      '/api/profile',
    ]);
    const headers: [string, string][] = [
      ...this.#credentialHeaders(),
      ['Host', this.#host],
      ['Connection', 'close'],
      ['Content-Type', 'application/json'],
    ];
    const style = r.int(8);
    const line = `${r.pick(['POST', 'GET', 'PUT'])} ${path} HTTP/1.1`;
    let tail: string;
    if (style === 0) {
      const size = body.length.toString(16);
      tail = `Transfer-Encoding: chunked\r\n\r\n${size}\r\n${body}\r\n0\r\n\r\n`;
    } else if (style === 1) {
      tail = `Transfer-Encoding: chunked\r\nContent-Length: ${body.length}\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    } else if (style === 2) {
      tail = `Content-Length: ${body.length}\r\nContent-Length: ${body.length + 1}\r\n\r\n${body} `;
    } else if (style === 3) {
      tail = `Expect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    } else if (style === 4) {
      tail = `Transfer-Encoding: gzip, chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    } else if (style === 5) {
      tail = `Content-Length: ${body.length}\r\n\r\n${body}GET / HTTP/1.1\r\nHost: x\r\n\r\n`;
    } else if (style === 6) {
      // A body that claims an encoding it does not have.
      const encoding = r.pick(['gzip', 'deflate', 'br', 'identity', 'x-unknown']);
      tail = `Content-Encoding: ${encoding}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    } else {
      const encoded = Buffer.from(body, 'utf16le').toString('latin1');
      tail = `Content-Type: application/json; charset=utf-16le\r\nContent-Length: ${encoded.length}\r\n\r\n${encoded}`;
    }
    const head = headers.map(([n, v]) => `${n}: ${v}\r\n`).join('');
    return {
      kind: 'framing',
      raw: Buffer.from(`${line}\r\n${head}${tail}`, 'latin1'),
      head: false,
    };
  }

  /** A valid request line and headers with random bytes in one place. */
  #bytes(): FuzzRequest {
    const r = this.#random;
    const base = this.#route();
    const raw = Buffer.from(base.raw);
    const end = raw.indexOf('\r\n\r\n');
    const limit = end > 0 ? end : raw.length;
    for (let i = 0, n = 1 + r.int(4); i < n; i++) raw[r.int(limit)] = r.int(256);
    return { kind: 'bytes', raw, head: base.head };
  }

  // --- parts ---

  /** Zero or one credential (sometimes two), verbatim, re-spelled, or someone else's. */
  #credentialHeaders(): [string, string][] {
    const r = this.#random;
    const user = r.pick(this.#users);
    const choice = r.weighted<string>([
      [20, 'none'],
      [12, 'basic'],
      [4, 'basic-wrong'],
      [3, 'basic-respelled'],
      [14, 'bearer'],
      [8, 'bearer-respelled'],
      [2, 'bearer-refresh'],
      [2, 'bearer-tampered'],
      [12, 'session'],
      [5, 'session-respelled'],
      [3, 'garbage'],
    ]);
    switch (choice) {
      case 'basic':
        return [['Authorization', `Basic ${user.basic}`]];
      case 'basic-wrong':
        return [
          [
            'Authorization',
            `Basic ${Buffer.from(`${user.username}:${r.pick(this.#users).password}x`).toString('base64')}`,
          ],
        ];
      case 'basic-respelled':
        return [['Authorization', `Basic ${respell(this.#random, user.basic)}`]];
      case 'bearer':
        return [['Authorization', `${r.pick(['Bearer', 'bearer', 'BEARER'])} ${user.accessToken}`]];
      case 'bearer-respelled':
        return [['Authorization', `Bearer ${respell(this.#random, user.accessToken)}`]];
      case 'bearer-refresh':
        return [['Authorization', `Bearer ${user.refreshToken}`]];
      case 'bearer-tampered': {
        const [h, p, s] = user.accessToken.split('.');
        const other = r.pick(this.#users).accessToken.split('.');
        return [['Authorization', `Bearer ${h}.${other[1] ?? p}.${s}`]];
      }
      case 'session':
        return [['Cookie', r.chance(0.3) ? `a=b; ${user.sessionCookie}; c=d` : user.sessionCookie]];
      case 'session-respelled': {
        const value = user.sessionCookie.slice(this.#cookieName.length + 1);
        return [['Cookie', `${this.#cookieName}=${respell(this.#random, value)}`]];
      }
      case 'garbage':
        return [[r.pick(['Authorization', 'Cookie']), r.string(PRINTABLE, r.int(200))]];
      default:
        return [];
    }
  }

  /** Host, Connection: close, an Accept sometimes. */
  #commonHeaders(host = true): [string, string][] {
    const r = this.#random;
    const headers: [string, string][] = [];
    if (host && r.chance(0.97)) headers.push(['Host', this.#host]);
    headers.push(['Connection', 'close']);
    if (r.chance(0.3))
      headers.push(['Accept', r.pick(['text/html', 'application/json', '*/*', 'text/html;q=0'])]);
    if (r.chance(0.1))
      headers.push(['Origin', r.pick([`http://${this.#host}`, 'https://evil.example', 'null'])]);
    return headers;
  }

  #anyBody(): string {
    const r = this.#random;
    const user = r.pick(this.#users);
    return r.pick([
      JSON.stringify({ username: user.username, password: user.password }),
      JSON.stringify({ query: '{ profile { username } }' }),
      '{"title":"x"}',
      `username=${user.username}&password=x`,
      r.string(PRINTABLE, r.int(300)),
      '',
    ]);
  }

  #build(
    kind: string,
    method: string,
    target: string,
    headers: readonly [string, string][],
    body?: string,
  ): FuzzRequest {
    return this.#finish(kind, method === 'HEAD', `${method} ${target} HTTP/1.1`, headers, body);
  }

  #finish(
    kind: string,
    head: boolean,
    line: string,
    headers: readonly [string, string][],
    body: string | undefined,
  ): FuzzRequest {
    const bytes = body === undefined ? undefined : Buffer.from(body, 'utf8');
    let text = `${line}\r\n`;
    for (const [name, value] of headers) text += `${name}: ${value}\r\n`;
    if (bytes !== undefined) text += `Content-Length: ${bytes.length}\r\n`;
    text += '\r\n';
    const start = Buffer.from(text, 'latin1');
    return { kind, raw: bytes === undefined ? start : Buffer.concat([start, bytes]), head };
  }
}
