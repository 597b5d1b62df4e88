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
  /** Anything a later feature adds (e.g. sample audit ids). */
  extras: Record<string, unknown>;
}
