import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium unless CHROMIUM_PATH names another build. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// In CI the browser must be there (.ci/run installs it); a developer without it skips the browser tests.
export const browserAvailable = fs.existsSync(CHROMIUM) || process.env.CI === 'true';

/** Headless Chromium for the browser tests, with its own background traffic (updates, sync) switched off. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
