// The Context Map's HTML shell (webviewHtml.ts: the Budget Preview's strict CSP). Pure.
import { webviewHtml, type WebviewHtmlInput } from './webviewHtml';

export type MapHtmlInput = WebviewHtmlInput;

export function mapHtml(input: MapHtmlInput): string {
  return webviewHtml(input, 'Context Map', 'Reading the transcript…');
}
