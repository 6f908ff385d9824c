/**
 * The example's session site in a real headless browser: Debian's `chromium`
 * driven by `playwright-core` (never a downloaded browser; `.ci/run` installs the
 * package). Without the browser the test fails and says how to install it.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../examples/app.js';
import { listen, type TestServer } from '../support/server.js';
import { screenshot, withPage } from './browser.js';

/** A host name the browser resolves to 127.0.0.1: another site than 127.0.0.1. */
const EVIL_HOST = 'evil.test';

let app: TestServer;
let attacker: TestServer;
/** What reached the example: method, path and the headers that CSRF checks read. */
let seen: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];

/** The attacker's page: a form that posts itself to the example at once. */
function attackPage(action: string, fields: Record<string, string>): string {
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`)
    .join('');
  return `<!doctype html><title>Win a prize</title>
<form id="f" method="post" action="${action}">${inputs}</form>
<script>document.getElementById('f').submit();</script>`;
}

beforeAll(async () => {
  const { listener } = await createApp({ session: { secure: false } });
  app = await listen(
    createServer((req, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      listener(req, res);
    }),
  );
  attacker = await listen(
    createServer((req, res) => {
      const path = (req.url ?? '/').split('?', 1)[0];
      const pages: Record<string, string> = {
        '/logout': attackPage(`${app.origin}/logout`, { _csrf: 'forged' }),
        '/post': attackPage(`${app.origin}/posts`, { title: 'forged' }),
      };
      const page = pages[path ?? ''];
      res.writeHead(page === undefined ? 404 : 200, { 'content-type': 'text/html' });
      res.end(page ?? 'Not Found');
    }),
  );
}, 30_000);

afterAll(async () => {
  await attacker.close();
  await app.close();
});

/** Opens the attacker's page and returns the status of its form post to the example. */
async function attack(page: Page, origin: string, path: string, target: string): Promise<number> {
  const [response] = await Promise.all([
    page.waitForResponse(
      (r) => r.url() === `${app.origin}${target}` && r.request().method() === 'POST',
    ),
    page.goto(`${origin}${path}`),
  ]);
  return response.status();
}

describe('the session site in a headless browser', () => {
  it('logs in through the redirect, shows the user and the API calls, refuses cross-site posts, logs out', async () => {
    await withPage(
      async (page, consoleErrors) => {
        await logInThroughTheRedirect(page);
        await checkThePageScript(page);
        expect(consoleErrors).toEqual([]); // no CSP violation, no failed call
        await screenshot(page, 'me');
        await forgeCrossOriginPosts(page);
        await logOut(page);
      },
      { loopbackHosts: [EVIL_HOST] },
    );
  }, 60_000);
});

/** Anonymous `/me` → the login form (a wrong password first) → `/me` as writer. */
async function logInThroughTheRedirect(page: Page): Promise<void> {
  await page.goto(`${app.origin}/me`);
  expect(page.url()).toBe(`${app.origin}/login?continue=%2Fme`);

  // A wrong password comes back to the form with the error (the target /me is the
  // default after login, so the redirect does not repeat it).
  await page.fill('input[name="username"]', 'writer');
  await page.fill('input[name="password"]', 'wrong-password');
  await page.click('button[type="submit"]');
  await page.waitForURL(`${app.origin}/login?error`);
  expect(await page.locator('#login-error').isVisible()).toBe(true);

  await page.fill('input[name="username"]', 'writer');
  await page.fill('input[name="password"]', 'writer-password');
  await page.click('button[type="submit"]');
  await page.waitForURL(`${app.origin}/me`);
  expect(await page.textContent('#username')).toBe('writer');
  expect(await page.textContent('#roles')).toBe('USER');
  expect(await page.textContent('#authorities')).toBe('posts:read, posts:write');
}

/** The page's script: tRPC and GraphQL calls authenticated by the session cookie. */
async function checkThePageScript(page: Page): Promise<void> {
  await page.waitForSelector('#trpc-profile[data-state="done"]');
  await page.waitForSelector('#graphql-profile[data-state="done"]');
  const trpc = (await page.textContent('#trpc-profile')) ?? '';
  expect(trpc).toMatch(/^HTTP 200\n/u);
  expect(trpc).toContain('"username": "writer"');
  const graphql = (await page.textContent('#graphql-profile')) ?? '';
  expect(graphql).toMatch(/^HTTP 200\n/u);
  expect(graphql).toContain('"username": "writer"');
  expect(graphql).not.toContain('errors');
  // A mutation (POST with the X-CSRF-Token header) from the page.
  await page.click('#create-post');
  await page.waitForSelector('#trpc-create[data-state="done"]');
  const created = (await page.textContent('#trpc-create')) ?? '';
  expect(created).toMatch(/^HTTP 200\n/u);
  expect(created).toContain('"title": "Hello from the browser"');
}

/** Auto-submitting forms on other origins post to the example: refused, nothing changes. */
async function forgeCrossOriginPosts(page: Page): Promise<void> {
  // Cross-origin but same-site (another port of 127.0.0.1): SameSite=Lax sends the
  // cookie with the forged posts, and the CSRF checks refuse them.
  seen = [];
  expect(await attack(page, attacker.origin, '/logout', '/logout')).toBe(403);
  expect(await attack(page, attacker.origin, '/post', '/posts')).toBe(403);
  const forged = seen.filter((r) => r.method === 'POST');
  expect(forged).toHaveLength(2);
  for (const request of forged) {
    expect(request.headers['sec-fetch-site']).toBe('same-site');
    expect(request.headers.cookie).toMatch(/(?:^|; )session=Fe26\.2\*/u);
  }
  // Another site: the cookie stays home, and the logout form post is refused too.
  seen = [];
  const evil = attacker.origin.replace('127.0.0.1', EVIL_HOST);
  expect(await attack(page, evil, '/logout', '/logout')).toBe(403);
  expect(seen.find((r) => r.method === 'POST')?.headers['sec-fetch-site']).toBe('cross-site');

  // Nothing changed: still logged in.
  await page.goto(`${app.origin}/me`);
  expect(page.url()).toBe(`${app.origin}/me`);
  expect(await page.textContent('#username')).toBe('writer');
}

/** The page's logout form: the login page says so, and `/me` needs a login again. */
async function logOut(page: Page): Promise<void> {
  await page.click('#logout button[type="submit"]');
  await page.waitForURL(`${app.origin}/login?logout`);
  expect(await page.locator('#logged-out').isVisible()).toBe(true);
  await page.goto(`${app.origin}/me`);
  expect(page.url()).toBe(`${app.origin}/login?continue=%2Fme`);
}
