import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/**
 * Security headers of the documentation pages (/docs: Swagger UI, /reference: Scalar). They share the
 * dashboard's origin, and with it the session storage where the dashboard keeps its key, so they get
 * a policy as strict as the two bundles allow offline: scripts only from this origin (plus the hash
 * of an inline bootstrap script the page carries), requests only to this origin, no framing, no
 * plugins. Both UIs set style attributes at run time, hence 'unsafe-inline' for styles only; icons are
 * data: URIs. docs/adr/0153-documentation-pages-a-csp-of-their-own.md.
 */
export function docPageHeaders(reply: FastifyReply, inlineScripts: readonly string[] = []): void {
  const hashes = inlineScripts
    .map((s) => ` 'sha256-${createHash('sha256').update(s).digest('base64')}'`)
    .join('');
  reply.header(
    'Content-Security-Policy',
    `default-src 'self'; script-src 'self'${hashes}; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; ` +
      "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; " +
      "form-action 'self'",
  );
  reply.header('X-Frame-Options', 'DENY');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Referrer-Policy', 'no-referrer');
}

/** The bodies of the inline `<script>` elements of an HTML page (those without a src). */
export function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map((m) => m[1]!);
}
