// DOM helpers shared by the webview bundles (Budget Preview, Context Map). Text is always inserted as text
// nodes or attribute values, never as markup: transcripts are untrusted.

export const SVG_NS = 'http://www.w3.org/2000/svg';

/** Creates an element; children are nodes or strings (inserted as text nodes). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { class?: string; title?: string; attrs?: Record<string, string> } = {},
  ...children: (Node | string | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (props.class) e.className = props.class;
  if (props.title) e.title = props.title;
  if (props.attrs) for (const [k, v] of Object.entries(props.attrs)) e.setAttribute(k, v);
  for (const c of children)
    if (c !== null && c !== undefined) e.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return e;
}

/** Creates an SVG element with attributes and, optionally, its text. */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  text?: string,
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A `type="button"` button with a click handler. */
export function button(
  label: string,
  onClick: () => void,
  title?: string,
  attrs?: Record<string, string>,
): HTMLButtonElement {
  const b = el('button', { title, attrs }, label);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}
