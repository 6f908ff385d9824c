/**
 * The documentation site as a reader's browser gets it: the VitePress build
 * (docs/.vitepress/dist) served on 127.0.0.1 by a small static server with VitePress's clean
 * URLs, and Debian's Chromium (test/e2e/browser.ts) visiting every page: every internal link
 * answers 200, no page logs a console error or throws, no request to the site fails; the local
 * search finds `preAuthorize`; TypeDoc's page of `JwtConfig` shows its methods; a screenshot of
 * the home page goes to .tmp/docs-home.png.
 *
 * The build: .ci/run runs the suite before its `npm run docs:build` step, so on a fresh
 * checkout there is no site and this test builds it (`npm run docs:build`: TypeDoc, then
 * VitePress with its dead-link check; about a minute). A build is reused only when it is
 * complete (a page for every Markdown file, TypeDoc's included) and every one of its files is
 * newer than every file under docs/ and src/, what the site is made of: so on .ci/run's Node 22
 * and 24 rounds, after its docs:build step, in the copies of .ci/peers.sh (tar keeps the
 * times), or when a person runs the test twice. Otherwise the test rebuilds it. (A new
 * VitePress or TypeDoc is not seen: delete docs/.vitepress/dist to rebuild.)
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
/** How long the visit of every page may take, all pages together. */
const CRAWL_DEADLINE_MS = 240_000;
/** How many pages the visit of every page opens at once. */
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

/** The pages of the build: its HTML files, VitePress's 404 page aside, as URLs. */
function builtPages(): string[] {
  return files(dist)
    .filter((path) => path.endsWith('.html') && path !== join(dist, '404.html'))
    .map(urlOf)
    .sort();
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

/** A new page in a context of its own, its problems collected; closed after `use`. */
async function withSitePage(use: (page: Page, problems: Problems) => Promise<void>): Promise<void> {
  if (browser === undefined) throw new Error('no browser');
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
    page.setDefaultNavigationTimeout(PAGE_TIMEOUT_MS);
    const problems: Problems = [];
    const at = (): string => page.url().replace(origin, '');
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${at()}: console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`${at()}: page error: ${error.message}`));
    page.on('requestfailed', (request) => {
      // ERR_ABORTED: a request the browser cancelled, such as VitePress's prefetch of a linked
      // page when the test moves on to the next page; an answer of the server's is seen below.
      const failure = request.failure()?.errorText ?? '';
      if (request.url().startsWith(origin) && failure !== 'net::ERR_ABORTED')
        problems.push(`${at()}: ${request.url()} failed: ${failure}`);
    });
    page.on('response', (response) => {
      if (response.url().startsWith(origin) && response.status() >= 400)
        problems.push(`${at()}: ${response.url()} answered ${response.status()}`);
    });
    await use(page, problems);
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

/** Opens `path` and waits until Vue has mounted (hydrated) the page. */
async function open(page: Page, path: string): Promise<void> {
  const response = await page.goto(`${origin}${path}`);
  expect(response?.status(), path).toBe(200);
  // Vue sets `__vue_app__` on its container once it has mounted (hydrated) the app.
  await page.waitForFunction("document.querySelector('#app')?.__vue_app__ !== undefined");
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

  it(
    'every page: every internal link answers 200, no console error, page error or failed request',
    async () => {
      const deadline = Date.now() + CRAWL_DEADLINE_MS;
      const built = builtPages();
      // Every Markdown page was built.
      expect(built).toEqual(markdownPages().map(htmlOf).map(urlOf).sort());
      /** Internal link targets (no hash, no query) → the first page that links to it. */
      const linkedFrom = new Map<string, string>();
      /** Internal link targets → their status, and whether they are pages. */
      const answers = new Map<string, { status: number; html: boolean }>();
      const visited: string[] = [];
      const queue = ['/'];
      const queued = new Set(queue);
      /** Visitors in the middle of a page, and whether one of them failed. */
      let busy = 0;
      let failed = false;
      /** Visits pages from the queue until it is empty and no visitor can add to it. */
      const visit = async (page: Page): Promise<void> => {
        for (;;) {
          if (failed) return;
          if (Date.now() > deadline) {
            throw new Error(
              `the visit passed its deadline (${CRAWL_DEADLINE_MS} ms) after ${visited.length} pages`,
            );
          }
          const path = queue.shift();
          if (path === undefined) {
            if (busy === 0) return;
            await new Promise((resolve) => setTimeout(resolve, 20));
            continue;
          }
          busy++;
          try {
            await open(page, path);
            visited.push(path);
            for (const href of await hrefsOf(page, 'a[href]')) {
              const url = new URL(href);
              if (url.origin !== origin || linkedFrom.has(url.pathname)) continue;
              const target = url.pathname;
              linkedFrom.set(target, path);
              const response = await fetch(`${origin}${target}`, {
                signal: AbortSignal.timeout(PAGE_TIMEOUT_MS),
              });
              await response.arrayBuffer();
              const html = (response.headers.get('content-type') ?? '').startsWith('text/html');
              answers.set(target, { status: response.status, html });
              if (response.status === 200 && html && !queued.has(target)) {
                queued.add(target);
                queue.push(target);
              }
            }
          } catch (error) {
            failed = true;
            throw error;
          } finally {
            busy--;
          }
        }
      };
      await Promise.all(
        Array.from({ length: VISITORS }, () =>
          withSitePage(async (page, problems) => {
            await visit(page);
            expect(problems).toEqual([]);
          }),
        ),
      );
      const broken = [...answers]
        .filter(([, answer]) => answer.status !== 200)
        .map(
          ([target, answer]) =>
            `${target} (${answer.status}, linked from ${linkedFrom.get(target) ?? '?'})`,
        );
      expect(broken).toEqual([]);
      // The pages reached by links are the pages built, no more and no fewer.
      expect([...visited].sort()).toEqual(built);
    },
    CRAWL_DEADLINE_MS + 30_000,
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
