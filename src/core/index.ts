// The engine's public surface: pure TypeScript, no `vscode` import, shared by the CLI,
// the extension and the tests.
export * from './reader';
export * from './entries';
export * from './transcript';
export * from './chain';
export * from './rounds';
export * from './tokens/usage';
export * from './tokens/estimate';
export * from './inspect';
