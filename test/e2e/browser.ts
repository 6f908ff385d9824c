/**
 * The one Chromium launcher of the end-to-end tests: Debian's `chromium` (or
 * `CHROMIUM_PATH`) driven by `playwright-core`, headless, never a downloaded
 * browser (`.ci/run` installs the package). Without the browser a test fails and
 * says how to install it; it is never skipped.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const SCREENSHOTS = fileURLToPath(new URL('../../.tmp/e2e/', import.meta.url));

/** Options of {@link launchChromium} and {@link withPage}. */
export interface BrowserOptions {
  /**
   * Host names the browser resolves to 127.0.0.1 (`--host-resolver-rules`), to
   * reach a test server as another site than 127.0.0.1.
   */
  readonly loopbackHosts?: readonly string[];
}

/** Debian's Chromium, headless; a missing browser fails the test. */
export async function launchChromium(options: BrowserOptions = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}. The end-to-end tests drive Debian's chromium: ` +
        '`sudo apt-get install -y --no-install-recommends chromium` (.ci/run does), ' +
        'or set CHROMIUM_PATH to a Chromium binary. They never download a browser.',
    );
  }
  const hosts = options.loopbackHosts ?? [];
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: 30_000,
    args: [
      // Chromium refuses to start its sandbox as root (CI containers).
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      '--disable-dev-shm-usage',
      ...(hosts.length > 0
        ? [`--host-resolver-rules=${hosts.map((host) => `MAP ${host} 127.0.0.1`).join(', ')}`]
        : []),
    ],
  });
}

/**
 * Launches Chromium, runs `use` on a new page (10-second timeouts; the errors the
 * page logs to its console collected in `consoleErrors`) and closes the browser,
 * whatever `use` does.
 */
export async function withPage(
  use: (page: Page, consoleErrors: string[]) => Promise<void>,
  options: BrowserOptions = {},
): Promise<void> {
  const browser = await launchChromium(options);
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    page.setDefaultNavigationTimeout(10_000);
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await use(page, consoleErrors);
  } finally {
    await browser.close();
  }
}

/** Saves a full-page screenshot as `.tmp/e2e/<name>.png`, for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}
