import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

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

const AXE = fs.readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

/**
 * axe-core's WCAG 2 A/AA rules on the page as it is now: the violations, each as `rule: targets`. The page's
 * context needs bypassCSP for the script to be injected.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  return page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run: (o: unknown) => Promise<{ violations: unknown[] }> } }
    ).axe;
    const r = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa'] } });
    return (r.violations as { id: string; nodes: { target: string[] }[] }[]).map(
      (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
  });
}
