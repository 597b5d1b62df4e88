import type { Migration } from 'kysely/migration';
import * as m0001 from './0001_initial.ts';
import * as m0020 from './0020_campaign_lifecycle.ts';

/** Every migration, in order. Names sort lexically; add new ones at the end. */
export const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0020_campaign_lifecycle': m0020,
};
