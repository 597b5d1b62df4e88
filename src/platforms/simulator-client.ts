import type { Platform } from '../core/catalog.ts';

/** The simulator's one OAuth client per platform; the service uses these when SIMULATOR_URL is set. */
export const SIMULATOR_CLIENT_SECRET = 'simulator-secret';
export const simulatorClientId = (platform: Platform) => `brandhealth-${platform}`;
