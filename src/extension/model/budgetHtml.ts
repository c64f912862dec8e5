// The Budget Preview's HTML shell (webviewHtml.ts). Pure.
import { webviewHtml, type WebviewHtmlInput } from './webviewHtml';

export { contentSecurityPolicy } from './webviewHtml';
export type BudgetHtmlInput = WebviewHtmlInput;

export function budgetHtml(input: BudgetHtmlInput): string {
  return webviewHtml(input, 'Budget Preview', 'Loading the compaction plan…');
}
