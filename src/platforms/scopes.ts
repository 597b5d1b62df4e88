import type { Config } from '../infra/config.ts';
import type { Platform } from '../core/catalog.ts';
import { platformEndpoints } from './oauth-config.ts';

/**
 * Scopes the score can do without: they only bring comment texts, which feed sentiment (the score
 * works without it, docs/scoring.md). A connection that lacks one is made, and says so. Every other
 * scope the connector asks for (platformEndpoints(...).scopes) is required: without it the daily
 * sync fails, so the connect flow refuses
 * (docs/adr/0105-granted-scopes-required-ones-refuse-comment-scopes-are.md).
 */
export const OPTIONAL_SCOPES: ReadonlySet<string> = new Set([
  'instagram_manage_comments',
  'pages_read_user_content',
  'comment.list',
  // YouTube's commentThreads.list accepts only this scope (it also allows writing: a brand may untick it).
  'https://www.googleapis.com/auth/youtube.force-ssl',
]);

export interface ScopeCheck {
  /** What the connector asks for. */
  requested: string[];
  /** What the platform granted; null when not known (connections made before it was recorded). */
  granted: string[] | null;
  /** Requested and not granted (empty when granted is unknown). */
  missing: string[];
  /** The missing ones the sync cannot work without. */
  missingRequired: string[];
}

/** Compares what a platform granted with what its connector asks for. */
export function checkScopes(requested: readonly string[], granted: readonly string[] | null): ScopeCheck {
  const have = granted === null ? null : new Set(granted);
  const missing = have === null ? [] : requested.filter((s) => !have.has(s));
  return {
    requested: [...requested],
    granted: granted === null ? null : [...granted],
    missing,
    missingRequired: missing.filter((s) => !OPTIONAL_SCOPES.has(s)),
  };
}

/**
 * The scope picture of a stored connection (`platform_connections.granted_scopes`) against what the
 * platform's connector asks for now: for the connection health resource.
 */
export function connectionScopes(
  config: Config,
  platform: Platform,
  grantedScopes: readonly string[] | null,
): ScopeCheck {
  return checkScopes(platformEndpoints(config, platform).scopes, grantedScopes);
}
