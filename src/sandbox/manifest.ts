import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/** What `brandhealth demo --out FILE` writes: where things are and which key does what. */
export interface SandboxManifest {
  baseUrl: string;
  docs: string;
  openapi: string;
  keys: {
    free: string;
    pro: string;
    proNoPlatforms: string;
    agency: string;
    agencyNoRead: string;
    otherAgency: string;
    revoked: string;
    expired: string;
    tacsiSectorFeed: string;
    tacsiDaily: string;
    tacsiPillar: string;
    tacsiFull: string;
    tacsiLockedOut: string;
    [extra: string]: string;
  };
  workspaces: {
    free: string;
    pro: string;
    proNoPlatforms: string;
    agency: string;
    agencyClients: string[];
    creatorClient: string;
    otherAgency: string;
    otherAgencyClients: string[];
    [extra: string]: string | string[];
  };
  tacsi: {
    sectors: string[];
    smallSector: string;
    licensedSector: string;
    unlicensedSector: string;
    dailySector: string;
    pillarFeed: { sector: string; pillar: string };
    lockedOutSector: string;
    [extra: string]: unknown;
  };
  /** Sandbox people by `<workspace>-<role>`: their sign-in and the workspace they belong to. */
  people?: Record<string, { email: string; password: string; workspace: string; role: string }>;
  /** Anything a later feature adds (e.g. sample audit ids). */
  extras: Record<string, unknown>;
}

/**
 * Writes the manifest readable by its owner only (0600): it holds every sandbox key in clear. Written
 * under a temporary name and renamed into place, so an existing file (perhaps left 0644) is replaced
 * by a new one with the new mode, never rewritten in place with its old one.
 */
export function writeManifest(file: string, manifest: SandboxManifest): void {
  const target = path.resolve(file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(temp, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    fs.chmodSync(temp, 0o600); // whatever the umask
    fs.renameSync(temp, target);
  } finally {
    fs.rmSync(temp, { force: true });
  }
}
