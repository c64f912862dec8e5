// What both webview bundles take from their page: VS Code's messaging and state API (acquired once per page, as
// VS Code allows), and the number format their figures use.

export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

export const vscode = acquireVsCodeApi();

const nf = new Intl.NumberFormat('en-US');
/** A whole number with thousands separators. */
export const num = (n: number): string => nf.format(Math.round(n));
