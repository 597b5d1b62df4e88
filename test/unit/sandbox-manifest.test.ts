import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeManifest, type SandboxManifest } from '../../src/sandbox/manifest.ts';

// The sandbox manifest holds every role's key in clear and is their only copy: `brandhealth demo`
// writes it owner-only (0600), also over a file an earlier run left readable by everyone.
// (test/e2e/sandbox.test.ts checks the file `demo` itself writes.)
const manifest = {
  baseUrl: 'http://127.0.0.1:8080',
  keys: { agency: 'bh_test_secret' },
} as unknown as SandboxManifest;

describe('writeManifest', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bh-manifest-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates the file 0600 whatever the umask', () => {
    const file = path.join(dir, 'new', 'sandbox.json');
    const umask = process.umask(0o000);
    try {
      writeManifest(file, manifest);
    } finally {
      process.umask(umask);
    }
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(manifest);
  });

  it('replaces a world-readable file with an owner-only one', () => {
    const file = path.join(dir, 'sandbox.json');
    fs.writeFileSync(file, '{"old":true}\n', { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    writeManifest(file, manifest);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(manifest);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
