// The Context Map's HTML shell: the Budget Preview's strict CSP (its own script by nonce, its
// own stylesheet, nothing inline, nothing remote). Pure.
import { contentSecurityPolicy } from './budgetHtml';

export interface MapHtmlInput {
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  nonce: string;
}

function attr(v: string): string {
  return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function mapHtml(input: MapHtmlInput): string {
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(input.nonce)) throw new Error('nonce must be at least 16 base64 characters');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(input.cspSource, input.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(input.styleUri)}">
<title>Context Map</title>
</head>
<body>
<main id="app" aria-live="polite"><p class="muted">Reading the transcript…</p></main>
<script nonce="${attr(input.nonce)}" src="${attr(input.scriptUri)}"></script>
</body>
</html>
`;
}
