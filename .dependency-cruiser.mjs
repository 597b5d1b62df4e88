/** Import rules for src/ and simulator/ (docs/architecture.md, "Dependency rules"). Run by `npm run deps`, part of lint. */
export default {
  forbidden: [
    {
      name: 'core-is-pure',
      comment:
        'src/core holds the shared vocabulary: it imports nothing outside src/core (no I/O, no libraries).',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { pathNot: '^src/core/' },
    },
    {
      name: 'infra-has-no-domain',
      comment:
        'src/infra is infrastructure without business rules: it may use src/core but no domain folder.',
      severity: 'error',
      from: { path: '^src/infra/' },
      // context.ts is the process context (types of infra services only), not a domain.
      to: { path: '^src/', pathNot: ['^src/infra/', '^src/core/', '^src/context\\.ts$'] },
    },
    {
      name: 'problems-only-at-the-edge',
      comment:
        'HTTP problems (infra/http/problem.ts) and the domain-error table belong to the HTTP edge: route modules, ' +
        'infra/http and the auth hook. Domain code throws DomainError (core/errors.ts) instead.',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: [
          '^src/[^/]+/[a-z0-9-]*routes\\.ts$',
          '^src/infra/http/',
          '^src/infra/auth/auth-plugin\\.ts$',
        ],
      },
      to: { path: '^src/infra/http/(problem|domain-problems)\\.ts$' },
    },
    {
      name: 'no-folder-cycles',
      comment:
        'Domain folders form a layering: no folder reaches itself through the others. The operator tools ' +
        '(admin, cli, sandbox) sit on top and are left out.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/', pathNot: '^src/(admin|cli|sandbox)(/|$)' },
      to: { circular: true, viaNot: '^src/(admin|cli|sandbox)(/|$)' },
    },
    {
      name: 'no-simulator-in-production',
      comment:
        'The platform simulator and the live demo sandbox (simulator/) are development and test tools: they ' +
        'use src/, never the other way round, so production code never loads them.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^simulator/' },
    },
    {
      name: 'no-cycles',
      comment: 'The import graph of src/ is acyclic.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(test|bench)/' },
  },
};
