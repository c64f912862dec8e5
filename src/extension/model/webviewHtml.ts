// The HTML shell every webview of the extension uses: a strict CSP (nothing but the extension's own script, by
// nonce, and its own stylesheet), no inline code, no remote content. Pure.

export interface WebviewHtmlInput {
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  nonce: string;
}

function attr(v: string): string {
  return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${cspSource}`,
    `font-src ${cspSource}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The page: `title`, and `loading` shown until the script draws. */
export function webviewHtml(input: WebviewHtmlInput, title: string, loading: string): string {
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(input.nonce)) throw new Error('nonce must be at least 16 base64 characters');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(input.cspSource, input.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(input.styleUri)}">
<title>${attr(title)}</title>
</head>
<body>
<main id="app" aria-live="polite"><p class="muted">${attr(loading)}</p></main>
<script nonce="${attr(input.nonce)}" src="${attr(input.scriptUri)}"></script>
</body>
</html>
`;
}
