/**
 * The documentation site as a reader's browser gets it: the VitePress build
 * (docs/.vitepress/dist) served on 127.0.0.1 by a small static server with VitePress's clean
 * URLs. Every internal link of every built page (its <a>, <link>, <script> and <img>) answers
 * 200 over HTTP, and a `#fragment` names an element of its page; every page is reached by links
 * from the home page. Debian's Chromium (test/e2e/browser.ts) renders every page once: the
 * hand-written ones and the API reference's index by a full load (the server's HTML hydrated),
 * TypeDoc's pages by in-site navigation (VitePress's router, as a click on a link); no page logs
 * a console error or throws, no request to the site fails. The local search finds
 * `preAuthorize`; TypeDoc's page of `JwtConfig` shows its methods; a screenshot of the home
 * page goes to .tmp/docs-home.png (a CI artifact).
 *
 * Not in `npm test` (vitest.config.ts excludes it): `npm run docs:check` runs it
 * (vitest.docs.config.ts), and .ci/run calls that right after its `npm run docs:build` step.
 *
 * The build is reused only when it is complete (a page for every Markdown file, TypeDoc's
 * included) and every one of its files is newer than every file under docs/ and src/, what the
 * site is made of; otherwise the test builds it (`npm run docs:build`: TypeDoc, then VitePress
 * with its dead-link check; about a minute). A new VitePress or TypeDoc is not seen: delete
 * docs/.vitepress/dist to rebuild.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../e2e/browser.js';
import { rawRequest } from '../support/server.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const docs = join(root, 'docs');
const dist = join(docs, '.vitepress', 'dist');
const cache = join(docs, '.vitepress', 'cache');
const SCREENSHOT = join(root, '.tmp', 'docs-home.png');
/** How long `npm run docs:build` may take (a loaded CI machine builds in about two minutes). */
const BUILD_TIMEOUT_MS = 240_000;
/** How long the check of every link over HTTP may take. */
const LINKS_DEADLINE_MS = 60_000;
/** How many link targets are fetched at once. */
const FETCHES = 8;
/** How long the visit of every page in Chromium may take, all pages together. */
const VISIT_DEADLINE_MS = 150_000;
/** How many pages (each in a browser context of its own) the visit opens at once. */
const VISITORS = 2;
/** How long one navigation or one wait on a page may take. */
const PAGE_TIMEOUT_MS = 15_000;

/** Every file under `dir`, but those under the folders of `skip`. */
function files(dir: string, skip: readonly string[] = []): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return skip.includes(path) ? [] : files(path, skip);
    return entry.isFile() ? [path] : [];
  });
}

/** The page URL of a built HTML file: index.html → /, a/index.html → /a/, a/b.html → /a/b. */
function urlOf(html: string): string {
  const path = relative(dist, html).split(sep).join('/');
  if (path === 'index.html') return '/';
  return `/${path.endsWith('/index.html') ? path.slice(0, -'index.html'.length) : path.slice(0, -'.html'.length)}`;
}

/** The HTML file a Markdown page of docs/ builds to (VitePress: a.md → a.html). */
function htmlOf(markdown: string): string {
  return join(dist, `${relative(docs, markdown).slice(0, -'.md'.length)}.html`);
}

/**
 * The Markdown pages of the site: every .md under docs/ (TypeDoc's docs/api/ included) but
 * VitePress's folders and the folders' READMEs (`srcExclude` in config.mts).
 */
function markdownPages(): string[] {
  return files(docs, [join(docs, '.vitepress'), join(docs, 'node_modules')]).filter(
    (path) => path.endsWith('.md') && !path.endsWith(`${sep}README.md`),
  );
}

/** The HTML files of the build, VitePress's 404 page aside. */
function builtFiles(): string[] {
  return files(dist).filter((path) => path.endsWith('.html') && path !== join(dist, '404.html'));
}

/** The pages of the build, as URLs. */
function builtPages(): string[] {
  return builtFiles().map(urlOf).sort();
}

/** Why the build in docs/.vitepress/dist cannot be reused, or undefined when it can. */
function staleness(): string | undefined {
  const built = files(dist);
  if (!built.includes(join(dist, 'index.html'))) return 'there is no build';
  const missing = markdownPages().filter((page) => !existsSync(htmlOf(page)));
  if (missing.length > 0) return `the build has no page for ${relative(root, missing[0] ?? '')}`;
  const oldest = Math.min(...built.map((path) => statSync(path).mtimeMs));
  const sources = [...files(docs, [dist, cache]), ...files(join(root, 'src'))];
  const newer = sources.find((path) => statSync(path).mtimeMs >= oldest);
  return newer === undefined ? undefined : `${relative(root, newer)} is newer than the build`;
}

/** `npm run docs:build`, its process group killed after {@link BUILD_TIMEOUT_MS}. */
async function buildSite(): Promise<void> {
  const child = spawn('npm', ['run', 'docs:build'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  const timer = setTimeout(() => {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, BUILD_TIMEOUT_MS);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('close', (c, s) => {
      resolve([c, s]);
    }),
  );
  clearTimeout(timer);
  if (code !== 0) {
    throw new Error(`npm run docs:build failed (${code ?? signal}):\n${output.join('')}`);
  }
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
};

/** A file of the build at `path`, or undefined; `null` for a path that climbs out of it. */
function fileFor(rawPath: string): string | null | undefined {
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return null;
  }
  // `..` and `.` segments (spelled out or percent-encoded), backslashes and NULs: refused.
  if (!path.startsWith('/') || /[\\\0]/u.test(path)) return null;
  if (path.split('/').some((segment) => segment === '..' || segment === '.')) return null;
  const candidates = path.endsWith('/') ? [`${path}index.html`] : [path, `${path}.html`];
  for (const candidate of candidates) {
    const file = join(dist, candidate);
    if (!file.startsWith(`${dist}${sep}`)) return null;
    if (existsSync(file) && statSync(file).isFile()) return file;
  }
  return undefined;
}

/**
 * The build on 127.0.0.1: `/x` → x.html, `/dir/` → dir/index.html, a file by its own name;
 * 404 otherwise, 403 for a path with `..`.
 */
function siteServer(): Server {
  return createServer((req, res) => {
    const rawPath = (req.url ?? '/').split('?', 1)[0] ?? '/';
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const file = fileFor(rawPath);
    if (file === null) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden\n');
      return;
    }
    if (file === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found\n');
      return;
    }
    const body = readFileSync(file);
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': body.length,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
}

/** The text of an HTML attribute value or of a <title>, its character references decoded. */
function decodeHtml(text: string): string {
  const named: Readonly<Record<string, string>> = {
    amp: '&',
    lt: '<',
    gt: '>',
    quot: '"',
    apos: "'",
    nbsp: '\u00a0',
  };
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/giu, (whole, ref: string) => {
    if (ref.startsWith('#x') || ref.startsWith('#X'))
      return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return named[ref.toLowerCase()] ?? whole;
  });
}

/** A link of a built page: the element, its target (an absolute URL) and the page it is on. */
interface Link {
  readonly tag: string;
  readonly url: URL;
  readonly from: string;
}

/** What a built page says: its URL, its <title>, the ids of its elements, its links. */
interface BuiltPage {
  readonly path: string;
  readonly title: string;
  readonly ids: ReadonlySet<string>;
  readonly links: readonly Link[];
}

/**
 * Reads a built HTML file. Tags are found by `<name ` (text and code blocks hold `&lt;`, never
 * `<`), their `href` and `src` attributes as VitePress writes them, in double quotes.
 */
function readBuiltPage(file: string, base: string): BuiltPage {
  const html = readFileSync(file, 'utf8');
  const path = urlOf(file);
  const title = decodeHtml(/<title>([^<]*)<\/title>/u.exec(html)?.[1] ?? '');
  const ids = new Set<string>();
  const links: Link[] = [];
  for (const tag of html.matchAll(/<([a-z][a-z0-9-]*)\s[^>]*>/giu)) {
    const [text, name = ''] = tag;
    const id = /\sid="([^"]*)"/u.exec(text)?.[1];
    if (id !== undefined) ids.add(decodeHtml(id));
    for (const attribute of text.matchAll(/\s(?:href|src)="([^"]*)"/gu)) {
      const value = decodeHtml(attribute[1] ?? '');
      if (/^(?:mailto|tel|javascript|data):/iu.test(value)) continue;
      const url = new URL(value, `${base}${path}`);
      if (url.origin === base) links.push({ tag: name.toLowerCase(), url, from: path });
    }
  }
  return { path, title, ids, links };
}

/** Runs `task` on every item, `limit` at a time. */
async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await task(item);
      }
    }),
  );
}

let read: Map<string, BuiltPage> | undefined;

/** The built pages, VitePress's 404 page included, by URL; read once. */
function readSite(): ReadonlyMap<string, BuiltPage> {
  if (read === undefined) {
    read = new Map();
    for (const file of [...builtFiles(), join(dist, '404.html')]) {
      const page = readBuiltPage(file, origin);
      read.set(page.path, page);
    }
  }
  return read;
}

let server: Server | undefined;
let browser: Browser | undefined;
let origin = '';

beforeAll(async () => {
  const why = staleness();
  if (why !== undefined) {
    console.log(`building the documentation site: ${why}`);
    await buildSite();
  }
  const listening = siteServer();
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, BUILD_TIMEOUT_MS + 60_000);

afterAll(async () => {
  try {
    await browser?.close();
  } finally {
    const open = server;
    if (open !== undefined) {
      open.closeAllConnections();
      await new Promise<void>((resolve) =>
        open.close(() => {
          resolve();
        }),
      );
    }
  }
});

/** What went wrong on the site while a page was open: console errors, page errors, failed requests. */
type Problems = string[];

/**
 * A new page in a context of its own, its problems collected, each said with `at()` (the page
 * the test has open, by default the browser's URL); closed after `use`.
 */
async function withSitePage(
  use: (page: Page, problems: Problems, setAt: (at: () => string) => void) => Promise<void>,
): Promise<void> {
  if (browser === undefined) throw new Error('no browser');
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
    page.setDefaultNavigationTimeout(PAGE_TIMEOUT_MS);
    const problems: Problems = [];
    let at = (): string => page.url().replace(origin, '');
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const source = message.location().url;
      problems.push(`${at()}: console error: ${message.text()}${source ? ` (${source})` : ''}`);
    });
    page.on('pageerror', (error) => problems.push(`${at()}: page error: ${error.message}`));
    page.on('requestfailed', (request) => {
      // ERR_ABORTED: a request the browser cancelled, such as VitePress's prefetch of a linked
      // page when a full load moves on to the next page; an answer of the server's is seen below.
      const failure = request.failure()?.errorText ?? '';
      if (request.url().startsWith(origin) && failure !== 'net::ERR_ABORTED')
        problems.push(`${at()}: ${request.url()} failed: ${failure}`);
    });
    page.on('response', (response) => {
      if (response.url().startsWith(origin) && response.status() >= 400)
        problems.push(`${at()}: ${response.url()} answered ${response.status()}`);
    });
    await use(page, problems, (next) => {
      at = next;
    });
  } finally {
    await context.close();
  }
}

/**
 * The absolute `href` of every link that `selector` finds on the page. (The code that runs in
 * the page is a string: the project's tsconfig has no DOM types.)
 */
function hrefsOf(page: Page, selector: string): Promise<string[]> {
  return page.evaluate<string[]>(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((a) => a.href)`,
  );
}

/** Opens `path` (a full load) and waits until Vue has mounted (hydrated) the page. */
async function open(page: Page, path: string): Promise<void> {
  const response = await page.goto(`${origin}${path}`);
  expect(response?.status(), path).toBe(200);
  // Vue sets `__vue_app__` on its container once it has mounted (hydrated) the app.
  await page.waitForFunction("document.querySelector('#app')?.__vue_app__ !== undefined");
}

/** Where the browser is after a visit, as the page's code sees it. */
interface Rendered {
  /** The route's path and Markdown file, VitePress's 404 page or not. */
  readonly route: string;
  readonly relativePath: string;
  readonly notFound: boolean;
  readonly title: string;
  /** The length of the text of the page's content. */
  readonly content: number;
}

/**
 * Installs `window.__siteCheck` in a loaded page: `visit(path, title, timeout)` goes to `path`
 * by VitePress's router (what its click handler calls for a link of the site: no full load)
 * and waits until the route, the title and the content are there; `links()` gives the paths of
 * the site's links every rendered page held. The router is the one the app provides to its
 * components (`useRouter()`), found on the app by its shape.
 */
const INSTALL_VISITOR = `(() => {
  const app = document.querySelector('#app')?.__vue_app__;
  if (app === undefined) throw new Error('no Vue app on #app');
  const provides = app._context.provides;
  const router = Object.getOwnPropertySymbols(provides)
    .map((key) => provides[key])
    .find((value) => value && typeof value.go === 'function' && value.route !== undefined);
  if (router === undefined) throw new Error("no VitePress router among the app's provides");
  const links = new Set();
  const state = () => ({
    route: router.route.path,
    relativePath: router.route.data.relativePath,
    notFound: router.route.data.isNotFound === true,
    title: document.title,
    content: document.querySelector('#VPContent')?.textContent.trim().length ?? 0,
  });
  window.__siteCheck = {
    async visit(path, title, timeout) {
      await router.go(path);
      const until = Date.now() + timeout;
      for (;;) {
        const now = state();
        const done = now.route === path && now.title === title && now.content > 0;
        if (done || now.notFound || Date.now() > until) {
          for (const a of document.querySelectorAll('a[href]')) {
            const url = new URL(a.href);
            if (url.origin === location.origin) links.add(url.pathname);
          }
          return now;
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    links: () => [...links],
  };
})()`;

/** The Markdown file VitePress reports for a page URL: / → index.md, /a/ → a/index.md, /a → a.md. */
function relativePathOf(path: string): string {
  return `${path.slice(1).replace(/(^|\/)$/u, '$1index')}.md`;
}

describe('the documentation site in a headless browser', () => {
  it('the server answers clean URLs, 404 for no page, 403 for a path out of the build', async () => {
    const status = async (target: string): Promise<number> =>
      (await rawRequest(origin, 'GET', target)).status;
    expect(await status('/')).toBe(200);
    expect(await status('/getting-started')).toBe(200);
    expect(await status('/api/')).toBe(200);
    expect(await status('/no-such-page')).toBe(404);
    expect(await status('/getting-started/')).toBe(404);
    for (const target of [
      '/../package.json',
      '/../../package.json',
      '/%2e%2e/%2e%2e/%2e%2e/package.json',
      '/api/..%2f..%2f..%2f..%2fpackage.json',
      '/..%5c..%5c..%5cpackage.json',
    ]) {
      expect(await status(target), target).toBe(403);
    }
  });

  /** Link targets (paths) already fetched and answered 200. */
  const answered = new Set<string>();

  it(
    "every built page's internal links answer 200 over HTTP and their #fragments exist; every page is linked",
    async () => {
      const deadline = AbortSignal.timeout(LINKS_DEADLINE_MS);
      const built = builtPages();
      // Every Markdown page was built.
      expect(built).toEqual(markdownPages().map(htmlOf).map(urlOf).sort());
      const site = readSite();
      const links = [...site.values()].flatMap((page) => page.links);
      // A browser asks for /favicon.ico when a page names no icon (none here does): the site
      // has one (docs/public/favicon.ico), or every first visit logs a 404.
      links.push({ tag: 'favicon', url: new URL('/favicon.ico', origin), from: 'the browser' });
      /** Each target path, with the first link to it. */
      const targets = new Map<string, Link>();
      for (const link of links) {
        if (!targets.has(link.url.pathname)) targets.set(link.url.pathname, link);
      }
      const broken: string[] = [];
      await eachLimited([...targets], FETCHES, async ([target, link]) => {
        const response = await fetch(`${origin}${target}`, { signal: deadline });
        await response.arrayBuffer();
        if (response.status === 200) answered.add(target);
        else broken.push(`${target} (${response.status}, <${link.tag}> on ${link.from})`);
      });
      expect(broken.sort()).toEqual([]);
      // A link to a part of a page (`/a#b`, `#b`) names an element of that page.
      const missing = links
        .filter((link) => link.tag === 'a' && link.url.hash.length > 1)
        .filter((link) => {
          const target = site.get(link.url.pathname);
          const id = decodeURIComponent(link.url.hash.slice(1));
          return target !== undefined && !target.ids.has(id);
        })
        .map((link) => `${link.url.pathname}${link.url.hash} (on ${link.from})`);
      expect([...new Set(missing)].sort()).toEqual([]);
      // The pages reached by links from the home page are the pages built, no more, no fewer.
      const reached = new Set(['/']);
      const queue = ['/'];
      for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
        for (const link of site.get(path)?.links ?? []) {
          const target = link.url.pathname;
          if (link.tag !== 'a' || reached.has(target) || !site.has(target) || target === '/404')
            continue;
          reached.add(target);
          queue.push(target);
        }
      }
      expect([...reached].sort()).toEqual(built);
    },
    LINKS_DEADLINE_MS + 30_000,
  );

  it(
    'every page rendered in Chromium: its route, title and content; no console error, page error or failed request',
    async () => {
      const deadline = Date.now() + VISIT_DEADLINE_MS;
      const pages = builtPages();
      const site = readSite();
      // The hand-written pages and the API reference's index are loaded in full: the server's
      // HTML hydrated by Vue (a mismatch logs an error). TypeDoc's pages, all from one
      // template, are rendered by in-site navigation, as a click on a link does (no full load:
      // under 100 ms a page instead of about 800).
      const full = pages.filter((path) => !path.startsWith('/api/') || path === '/api/');
      const navigated = pages.filter((path) => !full.includes(path));
      const rendered: string[] = [];
      const wrong: string[] = [];
      const renderedLinks = new Set<string>();
      const check = (path: string, now: Rendered): void => {
        const title = site.get(path)?.title ?? '';
        const expected = {
          route: path,
          relativePath: relativePathOf(path),
          notFound: false,
          title,
        };
        const got = {
          route: now.route,
          relativePath: now.relativePath,
          notFound: now.notFound,
          title: now.title,
        };
        if (JSON.stringify(got) !== JSON.stringify(expected) || now.content === 0) {
          wrong.push(
            `${path}: rendered ${JSON.stringify(now)}, expected ${JSON.stringify(expected)}`,
          );
        } else {
          rendered.push(path);
        }
      };
      const overdue = (): void => {
        if (Date.now() > deadline)
          throw new Error(
            `the visit passed its deadline (${VISIT_DEADLINE_MS} ms) after ${rendered.length} pages`,
          );
      };
      await Promise.all(
        Array.from({ length: VISITORS }, (_, visitor) =>
          withSitePage(async (page, problems, setAt) => {
            let current = '';
            setAt(() => current);
            const mine = (list: string[]): string[] =>
              list.filter((_path, i) => i % VISITORS === visitor);
            /** Renders `path`, by a full load or by the router; keeps the links it shows. */
            const visit = async (path: string, load: boolean): Promise<void> => {
              overdue();
              current = path;
              if (load) {
                await open(page, path);
                await page.evaluate(INSTALL_VISITOR);
              }
              const title = JSON.stringify(site.get(path)?.title ?? '');
              check(
                path,
                await page.evaluate<Rendered>(
                  `__siteCheck.visit(${JSON.stringify(path)}, ${title}, ${PAGE_TIMEOUT_MS})`,
                ),
              );
              // The next full load starts a new document: this one's links are taken now.
              if (load)
                for (const link of await page.evaluate<string[]>('__siteCheck.links()'))
                  renderedLinks.add(link);
            };
            for (const path of mine(full)) await visit(path, true);
            for (const path of mine(navigated)) await visit(path, false);
            for (const link of await page.evaluate<string[]>('__siteCheck.links()'))
              renderedLinks.add(link);
            expect(problems).toEqual([]);
          }),
        ),
      );
      expect(wrong).toEqual([]);
      expect(rendered.sort()).toEqual(pages);
      // The links of the rendered pages: none that the build's HTML did not have and that does
      // not answer 200.
      const broken: string[] = [];
      await eachLimited(
        [...renderedLinks].filter((path) => !answered.has(path)),
        FETCHES,
        async (path) => {
          const response = await fetch(`${origin}${path}`);
          await response.arrayBuffer();
          if (response.status !== 200) broken.push(`${path} (${response.status})`);
        },
      );
      expect(broken).toEqual([]);
    },
    VISIT_DEADLINE_MS + 30_000,
  );

  it('the local search finds preAuthorize, with results that link to pages', async () => {
    await withSitePage(async (page, problems) => {
      await open(page, '/');
      await page.click('#local-search button');
      await page.locator('#localsearch-input').pressSequentially('preAuthorize');
      const results = page.locator('.VPLocalSearchBox .results a.result');
      await results.first().waitFor();
      const hrefs = await hrefsOf(page, '.VPLocalSearchBox .results a.result');
      expect(hrefs.length).toBeGreaterThan(0);
      const built = new Set(builtPages());
      for (const href of hrefs) {
        const url = new URL(href);
        expect(url.origin).toBe(origin);
        expect(built.has(url.pathname), href).toBe(true);
      }
      expect(problems).toEqual([]);
    });
  }, 60_000);

  it("TypeDoc's page of JwtConfig shows its heading and its methods", async () => {
    const pages = builtPages().filter((path) => path.endsWith('/JwtConfig'));
    expect(pages).toHaveLength(1);
    await withSitePage(async (page, problems) => {
      await open(page, pages[0] ?? '');
      expect(await page.locator('h1').first().textContent()).toContain('JwtConfig');
      const headings = await page.locator('.vp-doc h2, .vp-doc h3').allTextContents();
      expect(headings.map((h) => h.replace(/\u200b/gu, '').trim())).toContain('issuer()');
      expect(problems).toEqual([]);
    });
  }, 60_000);

  it('a screenshot of the home page, .tmp/docs-home.png', async () => {
    await withSitePage(async (page, problems) => {
      await open(page, '/');
      mkdirSync(join(root, '.tmp'), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(problems).toEqual([]);
    });
    const png = readFileSync(SCREENSHOT);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
  }, 60_000);
});
