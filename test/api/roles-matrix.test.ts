import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createApiKey } from '../../src/admin/keys.ts';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { type Action, actionsOfScopes, ROLE_ACTIONS, ROLES } from '../../src/core/permissions.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { signedInPerson, type Browser } from '../helpers/people.ts';

// Every workspace route of the OpenAPI document, for every role (session) and every key scope,
// against the one permission table: a caller is refused for its role or scopes exactly when the
// table does not grant the route's action (x-permission). Built from the document, so a route
// added without an action, or one this test cannot reach, fails here.
let t: TestService;
const operations: Array<{ method: string; path: string; action: Action }> = [];
const sessions = {} as Record<(typeof ROLES)[number], Browser>;
const keys: Record<string, string> = {};

/**
 * /v1 operations that take no workspace: sign-in, TACSI feeds (subscriber keys), accepting an
 * invitation, and the platform's OAuth redirect back (bound to its attempt, not to a caller).
 */
const NOT_WORKSPACE = [
  /^\/v1\/auth\//,
  /^\/v1\/tacsi\//,
  /^\/v1\/invitations\/accept$/,
  /^\/v1\/platforms\/\{platform\}\/callback$/,
];
const unnamed: string[] = [];

beforeAll(async () => {
  t = await startTestService();
  const ws = await createWorkspace(t.db, { name: 'matrix', plan: 'enterprise', accountType: 'agency' });
  for (const role of ROLES) sessions[role] = await signedInPerson(t, { workspaceId: ws.id, role });
  for (const scopes of [['read'], ['write'], ['read', 'write']] as const) {
    keys[scopes.join('+')] = (await createApiKey(t.db, { workspaceId: ws.id }, { scopes: [...scopes] })).key;
  }
  const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
  for (const [path, item] of Object.entries<Record<string, { 'x-permission'?: Action }>>(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!path.startsWith('/v1/')) continue;
      if (op['x-permission'] === undefined) {
        if (!NOT_WORKSPACE.some((re) => re.test(path))) {
          unnamed.push(`${method.toUpperCase()} ${path}`);
        }
        continue;
      }
      operations.push({ method: method.toUpperCase(), path, action: op['x-permission'] });
    }
  }
});
afterAll(async () => {
  await t?.close();
});

/** Refused for the caller's role or scopes (not for a missing object or a bad body). */
function refusedForPermission(res: LightMyRequestResponse): boolean {
  if (res.statusCode !== 403) return false;
  const detail = String(res.json().detail);
  return /does not allow|do not allow|for signed-in people/.test(detail);
}

function urlOf(path: string): string {
  // Path parameters get an id that matches nothing: a permitted caller then gets 404 or 400, never 403.
  return path.replace(/\{[^}]+\}/g, 'matrix_nothing');
}

describe('roles x routes', () => {
  it('covers every workspace operation of the document', () => {
    expect(unnamed, 'operations taking a workspace without a permission').toEqual([]);
    expect(operations.length).toBeGreaterThan(30);
    const actions = new Set(operations.map((o) => o.action));
    for (const a of ['score.read', 'audit.run', 'member.manage', 'key.manage', 'webhook.manage'] as const) {
      expect(actions).toContain(a);
    }
  });

  it('refuses each session exactly when its role lacks the action', async () => {
    const mismatches: string[] = [];
    for (const op of operations) {
      for (const role of ROLES) {
        const res = await sessions[role].request(
          op.method as never,
          urlOf(op.path),
          op.method === 'GET' || op.method === 'DELETE' ? undefined : {},
        );
        const expected = !ROLE_ACTIONS[role].has(op.action);
        if (refusedForPermission(res) !== expected) {
          mismatches.push(
            `${role} ${op.method} ${op.path} (${op.action}): ${res.statusCode} ${res.body.slice(0, 120)}`,
          );
        }
        expect(res.statusCode, `${role} ${op.method} ${op.path}`).toBeLessThan(500);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('refuses each key exactly when its scopes lack the action', async () => {
    const mismatches: string[] = [];
    for (const op of operations) {
      for (const [name, key] of Object.entries(keys)) {
        const res = await t.request({
          method: op.method as never,
          url: urlOf(op.path),
          key,
          ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { payload: {} }),
        });
        const expected = !actionsOfScopes(name.split('+') as never).has(op.action);
        if (refusedForPermission(res) !== expected) {
          mismatches.push(
            `key ${name} ${op.method} ${op.path} (${op.action}): ${res.statusCode} ${res.body.slice(0, 120)}`,
          );
        }
        expect(res.statusCode, `key ${name} ${op.method} ${op.path}`).toBeLessThan(500);
      }
    }
    expect(mismatches).toEqual([]);
  });
});
