// The project's import rules, checked in `npm run lint` (dependency-cruiser): no import circles anywhere in src, and
// the layers: the engine (src/core) is shared by the CLI, the extension and the tests, so it imports none of them and
// not vscode; the webview bundles run in a page, so they import only each other and the engine's plain types.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: split the shared part into its own module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-stays-pure',
      severity: 'error',
      comment: 'src/core is the engine: no vscode, extension, CLI or webview imports.',
      from: { path: '^src/core/' },
      to: { path: '^src/(extension|cli|webview)/|^vscode$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'io-is-the-bottom-layer',
      severity: 'error',
      comment:
        'src/core/io is how every file is written (atomic writes, the lock, backups, the one commit) and read beside a transcript: it depends on nothing in the engine but core/errors.ts, so every write can go through it.',
      from: { path: '^src/core/io/' },
      to: { path: '^src/core/', pathNot: '^src/core/(io/|errors\\.ts$)' },
    },
    {
      name: 'core-no-vscode-types',
      severity: 'error',
      comment: 'src/core does not even name vscode types.',
      from: { path: '^src/core/' },
      to: { path: '^vscode$' },
    },
    {
      name: 'cli-no-extension',
      severity: 'error',
      comment: 'The CLI runs without VS Code.',
      from: { path: '^src/cli/' },
      to: { path: '^src/(extension|webview)/|^vscode$' },
    },
    {
      name: 'webview-only-protocol',
      severity: 'error',
      comment: 'Webview code runs in the page: it imports other webview modules and plain types only.',
      from: { path: '^src/webview/' },
      to: { path: '^src/(extension|cli)/|^vscode$|^node:' },
    },
    {
      name: 'webview-core-types-only',
      severity: 'error',
      comment: 'The page gets engine types, never engine code.',
      from: { path: '^src/webview/' },
      to: { path: '^src/core/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'extension-not-from-webview',
      severity: 'error',
      comment:
        "The extension host talks to pages through the protocol modules only, and declares its commands' options with " +
        'their validator kit (validate.ts, pure TypeScript).',
      from: { path: '^src/extension/' },
      to: { path: '^src/webview/(?!(protocol|mapProtocol|validate)\\.ts$)' },
    },
    {
      name: 'core-root-below-compact',
      severity: 'error',
      comment:
        "The engine's root (src/core/*.ts: reading, analysing, pricing a session) is what the compactor builds on, so it " +
        'imports nothing from src/core/compact/: what both need lives at the root (compactSettings.ts, lines.ts, ' +
        'summaryDetail.ts), and what needs a plan lives in compact/ (compact/economics.ts).',
      from: { path: '^src/core/[^/]+\\.ts$' },
      to: { path: '^src/core/compact/' },
    },
    {
      name: 'engine-reads-no-agent-schema',
      severity: 'error',
      comment:
        "The engine outside src/core/formats/ reads the engine's model (core/conversation.ts) and asks an agent's module " +
        "through the registry (formats/registry.ts), never importing an agent's own folder (issue 32; " +
        'test/unit/neutral-core.test.ts checks it too).',
      from: {
        path: '^src/core/',
        pathNot: '^src/core/formats/',
      },
      to: { path: '^src/core/formats/[^/]+/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
