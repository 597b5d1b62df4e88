import { createRequire, syncBuiltinESMExports } from 'node:module';

// Preloaded into a child service (`node --import`): the system resolver's answer for one name the
// test controls. STANDIN_DNS_MODE=hang leaves every lookup of STANDIN_DNS_NAME pending (a DNS
// server that never answers: the request handling it is caught mid-way), and logs
// STANDIN_DNS_MARKER when that happens; =answer resolves the name to STANDIN_DNS_ADDRESS. Every
// other name goes to the real resolver.
const require = createRequire(import.meta.url);
const dns = require('node:dns/promises') as typeof import('node:dns/promises');
const real = dns.lookup;
const name = process.env.STANDIN_DNS_NAME;
const mode = process.env.STANDIN_DNS_MODE;
const address = process.env.STANDIN_DNS_ADDRESS ?? '93.184.215.14';

export const STANDIN_DNS_MARKER = 'standin-dns: lookup held';

(dns as { lookup: unknown }).lookup = (hostname: string, options?: unknown) => {
  if (hostname !== name) return (real as (h: string, o?: unknown) => Promise<unknown>)(hostname, options);
  if (mode === 'hang') {
    process.stderr.write(`${STANDIN_DNS_MARKER}\n`);
    return new Promise(() => {});
  }
  const all = (options as { all?: boolean } | undefined)?.all;
  return Promise.resolve(all ? [{ address, family: 4 }] : { address, family: 4 });
};
syncBuiltinESMExports();
