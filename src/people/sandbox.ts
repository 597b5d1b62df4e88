import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.ts';
import type { SandboxExtension } from '../domain-module.ts';
import { ROLES } from '../core/permissions.ts';
import { sandboxId } from '../sandbox/ids.ts';
import type { SandboxManifest } from '../sandbox/manifest.ts';
import { hashPassword } from './password.ts';

/**
 * One person per role in the pro workspace and in the agency, and the Free workspace's owner (its
 * plan has room for one: nine people), signed in with the
 * passwords written to the manifest under `people` (sandbox only). One password and one scrypt hash
 * serve all of them, so seeding stays fast; it is fresh on every run (the manifest is rewritten).
 */
async function seedPeople(ctx: AppContext, manifest: SandboxManifest): Promise<void> {
  const password = randomBytes(12).toString('base64url');
  const hash = await hashPassword(password);
  const now = ctx.now();
  const people: NonNullable<SandboxManifest['people']> = {};
  const teams = [
    ['free', ['owner']],
    ['pro', ROLES],
    ['agency', ROLES],
  ] as const;
  for (const [team, roles] of teams) {
    const workspaceId = manifest.workspaces[team];
    for (const role of roles) {
      const name = `${team}-${role}`;
      const id = sandboxId('per', `person:${name}`);
      const email = `${name}@sandbox.example`;
      await ctx.db
        .insertInto('people')
        .values({ id, email, name: `Sandbox ${team} ${role}`, password_hash: hash, email_verified_at: now })
        .onConflict((oc) => oc.column('id').doUpdateSet({ password_hash: hash }))
        .execute();
      await ctx.db
        .insertInto('memberships')
        .values({ workspace_id: workspaceId, person_id: id, role })
        .onConflict((oc) => oc.columns(['workspace_id', 'person_id']).doUpdateSet({ role }))
        .execute();
      people[name] = { email, password, workspace: workspaceId, role };
    }
  }
  manifest.people = people;
}

export const peopleSandbox: SandboxExtension = {
  name: 'people',
  run: (ctx, manifest) => seedPeople(ctx, manifest),
};
