/**
 * The example's OAuth2 login in a real headless browser: Debian's `chromium` driven
 * by `playwright-core` clicks "Log in with the local test provider", logs in at the
 * development OpenID provider (oidc-provider on 127.0.0.1) and lands on `/me`.
 * Without the browser the test fails and says how to install it.
 */
import { createServer } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../examples/app.js';
import { listen, type TestServer } from '../support/server.js';
import { screenshot, withPage } from './browser.js';

let app: TestServer;
let issuer: string;
let closeApp: () => Promise<void>;

beforeAll(async () => {
  // The redirect URI registered at the provider names the example's port: listen first.
  const node = createServer();
  app = await listen(node);
  const example = await createApp({
    session: { secure: false },
    oauth2DevProvider: { appOrigin: app.origin },
  });
  node.on('request', example.listener);
  closeApp = example.close;
  issuer = example.oauth2?.issuer ?? '';
}, 30_000);

afterAll(async () => {
  await app.close();
  await closeApp();
});

describe('OAuth2 login with the development provider in a headless browser', () => {
  it('clicks through the provider login as admin, lands on /me, logs out', async () => {
    await withPage(async (page, consoleErrors) => {
      await logInAtTheProvider(page, consoleErrors);
      expect(consoleErrors).toEqual([]); // no CSP violation on either site
      await screenshot(page, 'oauth2-me');
      await logOutAndBackIn(page);
    });
  }, 60_000);
});

/** `/me` → `/login` → the provider's form (a wrong password first) → `/me` as admin. */
async function logInAtTheProvider(page: Page, consoleErrors: string[]): Promise<void> {
  await page.goto(`${app.origin}/me`);
  expect(page.url()).toBe(`${app.origin}/login?continue=%2Fme`);
  await page.click('text=Log in with the local test provider');
  await page.waitForURL((url) => url.origin === issuer && url.pathname.startsWith('/interaction/'));
  expect(await page.textContent('h1')).toBe('Local test provider');

  await page.fill('input[name="username"]', 'admin');
  await page.fill('input[name="password"]', 'wrong-password');
  await page.click('#provider-login button[type="submit"]');
  await page.waitForSelector('#provider-error');
  expect(new URL(page.url()).origin).toBe(issuer);
  // The form comes back with 401, which the browser logs; nothing else may be logged.
  expect(consoleErrors).toEqual([expect.stringContaining('401')]);
  consoleErrors.length = 0;

  await page.fill('input[name="username"]', 'admin');
  await page.fill('input[name="password"]', 'admin-password');
  await page.click('#provider-login button[type="submit"]');
  await page.waitForURL(`${app.origin}/me`);
  expect(await page.textContent('#username')).toBe('admin');
  expect(await page.textContent('#roles')).toBe('ADMIN, USER');
  expect(await page.textContent('#authorities')).toBe('posts:read, posts:write, users:write');
  // The page's API calls run with the session the OAuth2 login started.
  await page.waitForSelector('#trpc-profile[data-state="done"]');
  expect(await page.textContent('#trpc-profile')).toContain('"username": "admin"');
}

/** Logout ends the session; the provider asks for the password again (prompt=login). */
async function logOutAndBackIn(page: Page): Promise<void> {
  await page.click('#logout button[type="submit"]');
  await page.waitForURL(`${app.origin}/login?logout`);
  await page.goto(`${app.origin}/me`);
  expect(page.url()).toBe(`${app.origin}/login?continue=%2Fme`);

  await page.click('text=Log in with the local test provider');
  await page.waitForURL((url) => url.origin === issuer && url.pathname.startsWith('/interaction/'));
  // Someone else this time: the provider session did not log admin back in.
  await page.fill('input[name="username"]', 'guest');
  await page.fill('input[name="password"]', 'guest-password');
  await page.click('#provider-login button[type="submit"]');
  await page.waitForURL(`${app.origin}/me`);
  expect(await page.textContent('#username')).toBe('guest');
  expect(await page.textContent('#roles')).toBe('(none)');
}
