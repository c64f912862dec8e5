// Context Map webview (browser bundle, dist/map.js). Draws what the host sends: a stacked bar
// per round (or per bucket of rounds) of what the context holds, the usage line, boundaries,
// the context window, the auto-compact threshold and the target (dragged to replan), the plan's
// marks, per-tool and largest-item tables, the cost, and a selected round rendered for reading.
// Transcript text goes in through text nodes only (never innerHTML).
// Over 400 lines: one bundle's whole DOM side (chart events, tables, the round reader and keyboard navigation);
// drawing itself is in mapChart.ts, the protocol in mapProtocol.ts.
import { shortTokens } from './chart';
import {
  barOf,
  clampTarget,
  clampView,
  MAP_SIZE,
  mapGeometry,
  panView,
  tokensAtY,
  zoomView,
  type MapGeometry,
  type MapView,
} from './mapChart';
import { button, el, svg } from './dom';
import { num, vscode } from './webviewApi';
import { parseHostToMap, type DetailItem, type MapState, type MapToHost, type RoundDetail } from './mapProtocol';

const usd = (n: number) => (n >= 100 ? `$${n.toFixed(0)}` : n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const MARK_TEXT = { keep: 'kept', summarize: 'summarized', drop: 'dropped' } as const;

let state: MapState | undefined;
let view: MapView = { from: 0, to: 0 };
let selected: number | null = null;
let detail: RoundDetail | undefined;
let exact: (number | null)[] | undefined;
let geometry: MapGeometry | undefined;
/** Target shown while dragging (null: the state's). */
let dragTarget: number | null = null;
/** A drag of the target is under way (its pointer), so a state arriving meanwhile keeps the dragged line. */
let dragPointer: number | null = null;
/** The last target sent to the host, until a state planned for it arrives. */
let sentTarget: number | null = null;
/** Moves the current target handle (a redraw during a drag makes a new one). */
let moveTarget: (tokens: number) => void = () => undefined;
/** While dragging, the host replans at most this often (ms), so the plan, tree and decorations follow the line. */
const DRAG_REPLAN_MS = 150;
let lastDragSend = 0;
let dragSendTimer: ReturnType<typeof setTimeout> | undefined;

function sendTarget(tokens: number): void {
  sentTarget = tokens;
  lastDragSend = performance.now();
  send({ type: 'setTarget', tokens });
}

/** Sends the dragged target now if the last send is old enough, else once it is (the latest value wins). */
function sendTargetThrottled(): void {
  if (dragSendTimer) return;
  const wait = Math.max(0, DRAG_REPLAN_MS - (performance.now() - lastDragSend));
  dragSendTimer = setTimeout(() => {
    dragSendTimer = undefined;
    if (dragPointer !== null && dragTarget !== null && dragTarget !== sentTarget) sendTarget(dragTarget);
  }, wait);
}

window.addEventListener('pointermove', (e) => {
  if (dragPointer !== e.pointerId || !geometry) return;
  const node = document.getElementById('target');
  if (!(node instanceof SVGGraphicsElement)) return;
  moveTarget(tokensAtY(geometry, svgY(node, e.clientY)));
  sendTargetThrottled();
});
const endDrag = (e: PointerEvent) => {
  if (dragPointer !== e.pointerId) return;
  dragPointer = null;
  if (dragSendTimer) clearTimeout(dragSendTimer);
  dragSendTimer = undefined;
  document.getElementById('target')?.classList.remove('dragging');
  const node = document.getElementById('target');
  if (e.type === 'pointerup' && geometry && node instanceof SVGGraphicsElement)
    moveTarget(tokensAtY(geometry, svgY(node, e.clientY)));
  if (dragTarget !== null) sendTarget(dragTarget);
};
window.addEventListener('pointerup', endDrag);
window.addEventListener('pointercancel', endDrag);

function send(msg: MapToHost): void {
  vscode.postMessage(msg);
}

function link(text: string, title: string, onClick: () => void): HTMLAnchorElement {
  const a = el('a', { attrs: { href: '#' }, title }, text);
  a.addEventListener('click', (e) => {
    e.preventDefault();
    onClick();
  });
  return a;
}

const root = () => document.getElementById('app') ?? document.body;

function showMessage(kind: 'empty' | 'busy', message: string): void {
  state = undefined;
  root().replaceChildren(el('p', { class: kind === 'busy' ? 'muted busy' : 'muted' }, message));
}

function receiveState(s: MapState): void {
  const n = s.rounds.length;
  const sameFile = state?.file === s.file;
  const wasAtEnd = !state || view.to >= state.rounds.length;
  state = s;
  // Keep the dragged line while the drag goes on, or until the plan for the last sent target arrives.
  if (!sameFile || (dragPointer === null && (sentTarget === null || s.targetTokens === sentTarget))) {
    dragTarget = null;
    sentTarget = null;
  }
  vscode.setState({ file: s.file }); // lets VS Code restore the panel for this transcript
  if (!sameFile) {
    view = { from: 0, to: n };
    selected = null;
    detail = undefined;
  } else if (wasAtEnd)
    view = clampView({ from: view.from, to: n }, n); // follow a live session's new rounds
  else view = clampView(view, n);
  render();
}

function render(): void {
  if (!state) return;
  const s = state;
  const started = performance.now();
  const focused = document.activeElement?.id;
  const header = el(
    'header',
    {},
    el('h1', {}, 'Context Map: ', el('span', { class: 'file', title: s.file }, s.fileName)),
    el(
      'p',
      { class: 'summary' },
      `${num(s.rounds.length)} rounds · context now ${num(s.contextNow)} tokens of ${s.contextWindow !== null ? shortTokens(s.contextWindow) : 'an unknown window'} · cost ${usd(s.cost.totalUsd)}`,
    ),
    el('p', { class: 'muted', attrs: { id: 'map-limits' } }, s.limitsText),
    el('p', { class: 'muted', attrs: { id: 'plan-summary' } }, s.planSummary),
    el(
      'div',
      { class: 'actions' },
      button('Refresh', () => send({ type: 'refresh' }), 'Re-read the transcript'),
    ),
  );
  root().replaceChildren(
    header,
    renderChartSection(s),
    renderDetail(),
    renderTools(s),
    renderLargest(s),
    renderCompactions(s),
    renderCost(s),
  );
  if (focused) document.getElementById(focused)?.focus();
  document.body.dataset.drawMs = (performance.now() - started).toFixed(1);
}

// ---------------------------------------------------------------------------------------------
// Chart

function renderChartSection(s: MapState): HTMLElement {
  const section = el(
    'section',
    { attrs: { 'aria-labelledby': 'chart-h', id: 'chart-section' } },
    el('h2', { attrs: { id: 'chart-h' } }, 'What the context holds, round by round'),
  );
  if (!s.rounds.length) {
    section.append(el('p', { class: 'muted' }, 'No rounds.'));
    return section;
  }
  const n = s.rounds.length;
  const g = mapGeometry(s, view);
  geometry = g;
  const range = el(
    'span',
    { class: 'muted', attrs: { id: 'range' } },
    `rounds ${view.from}–${view.to - 1} of ${n}${g.roundsPerBar > 1 ? `, ${g.roundsPerBar} per bar (the largest shown)` : ''}`,
  );
  const toolbar = el(
    'div',
    { class: 'toolbar', attrs: { role: 'toolbar', 'aria-label': 'Chart view' } },
    button('−', () => setView(zoomView(view, n, 2)), 'Zoom out (-)', { 'aria-label': 'Zoom out' }),
    button('+', () => setView(zoomView(view, n, 0.5)), 'Zoom in (+)', { 'aria-label': 'Zoom in' }),
    button('◀', () => setView(panView(view, n, -Math.max(1, Math.round((view.to - view.from) / 4)))), 'Pan left', {
      'aria-label': 'Pan left',
    }),
    button('▶', () => setView(panView(view, n, Math.max(1, Math.round((view.to - view.from) / 4)))), 'Pan right', {
      'aria-label': 'Pan right',
    }),
    button('All', () => setView({ from: 0, to: n }), 'Show every round'),
    range,
  );
  const chart = drawChart(s, g);
  section.append(toolbar, el('div', { class: 'chart-wrap' }, chart), renderLegend(s, g));
  return section;
}

function setView(v: MapView): void {
  if (!state) return;
  view = clampView(v, state.rounds.length);
  redraw(['chart']);
  document.getElementById('map-chart')?.focus();
}

/**
 * Redraws only the given sections (a pan or zoom changes the chart, a selection the chart and the round): the
 * tables and the header stay as they are, so a pan costs the chart's drawing, not the page's.
 */
function redraw(parts: readonly ('chart' | 'detail')[]): void {
  if (!state) return;
  const s = state;
  const started = performance.now();
  const focused = document.activeElement?.id;
  for (const part of parts) {
    const old = document.getElementById(part === 'chart' ? 'chart-section' : 'detail');
    if (!old) return render();
    old.replaceWith(part === 'chart' ? renderChartSection(s) : renderDetail());
  }
  if (focused && document.activeElement?.id !== focused) document.getElementById(focused)?.focus();
  document.body.dataset.drawMs = (performance.now() - started).toFixed(1);
}

function drawChart(s: MapState, g: MapGeometry): SVGSVGElement {
  const chart = svg('svg', {
    id: 'map-chart',
    viewBox: g.viewBox,
    class: 'chart',
    role: 'application',
    tabindex: 0,
    'aria-label':
      'Context per round. Left and right arrows select a bar, Enter shows its round, plus and minus zoom, Page Up and Page Down pan.',
  });
  chart.append(patternDefs());
  for (const t of g.yTicks) {
    chart.append(svg('line', { x1: g.plot.x, x2: g.plot.x + g.plot.width, y1: t.pos, y2: t.pos, class: 'grid' }));
    chart.append(svg('text', { x: g.plot.x - 6, y: t.pos + 4, class: 'tick tick-y' }, t.label));
  }
  const barsGroup = svg('g', { class: 'bars' });
  const seriesPaths = new Array<string>(16).fill('');
  const overlayPaths = { summarize: '', drop: '' };
  g.bars.forEach((b, i) => {
    const group = svg('g', {
      class: `bar mark-${b.mark}${selected !== null && selected >= b.first && selected <= b.last ? ' selected' : ''}`,
      'data-bar': i,
      'data-first': b.first,
      'data-last': b.last,
      'data-peak': b.peak,
      'data-total': b.total,
      'data-mark': b.mark,
    });
    const label = b.first === b.last ? `Round #${b.first}` : `Rounds #${b.first}–#${b.last} (largest: #${b.peak})`;
    const r = s.rounds[b.peak];
    group.append(
      svg(
        'title',
        {},
        `${label}: ${num(b.total)} tokens [${MARK_TEXT[b.mark]}]${b.usage !== null ? `; usage ${num(b.usage)}` : ''}${r.costUsd !== null && b.first === b.last ? `; ${usd(r.costUsd)}` : ''} — ${r.label}`,
      ),
    );
    group.append(svg('rect', { x: b.x, y: g.plot.y, width: b.width, height: g.plot.height, class: 'hit' }));
    for (const seg of b.segments)
      seriesPaths[s.series[seg.series].colour % 16] += `M${b.x} ${seg.y}h${b.width}v${seg.height}h${-b.width}z`;
    if (b.mark !== 'keep' && b.segments.length) {
      const top = Math.min(...b.segments.map((x) => x.y));
      overlayPaths[b.mark] += `M${b.x} ${top}h${b.width}V${g.plot.y + g.plot.height}h${-b.width}z`;
    }
    group.append(
      svg('rect', {
        x: b.x,
        y: g.plot.y + g.plot.height + 3,
        width: b.width,
        height: 6,
        class: `strip strip-${b.mark}`,
      }),
    );
    group.addEventListener('click', () => selectRound(b.peak));
    barsGroup.append(group);
  });
  // The fills of all bars as one path per series and one per plan mark (a few dozen elements, not thousands, so a
  // pan redraws quickly); they let the pointer through to each bar's hit area below them.
  const fills = svg('g', { class: 'fills' });
  seriesPaths.forEach((d, k) => d && fills.append(svg('path', { d, class: `seg s${k}` })));
  for (const mark of ['summarize', 'drop'] as const)
    if (overlayPaths[mark]) fills.append(svg('path', { d: overlayPaths[mark], class: `overlay overlay-${mark}` }));
  chart.append(barsGroup, fills);
  for (const b of g.bars) {
    if (!b.boundary) continue;
    chart.append(svg('line', { x1: b.x, x2: b.x, y1: g.plot.y, y2: g.plot.y + g.plot.height, class: 'boundary' }));
  }
  chart.append(
    svg('text', { x: g.plot.x, y: g.plot.y + g.plot.height + 28, class: 'tick' }, `#${g.bars[0]?.first ?? 0}`),
  );
  chart.append(
    svg(
      'text',
      { x: g.plot.x + g.plot.width, y: g.plot.y + g.plot.height + 28, class: 'tick label-end' },
      `#${g.bars[g.bars.length - 1]?.last ?? 0}`,
    ),
  );
  if (g.usagePath) chart.append(svg('path', { d: g.usagePath, class: 'usage' }));
  for (const l of g.lines) {
    if (l.kind === 'target') continue;
    chart.append(
      svg('line', { x1: g.plot.x, x2: g.plot.x + g.plot.width, y1: l.y, y2: l.y, class: `ref ref-${l.kind}` }),
    );
    chart.append(svg('text', { x: g.plot.x + 4, y: l.y - 4, class: 'label' }, l.label));
  }
  chart.append(svg('rect', { x: g.plot.x, y: g.plot.y, width: g.plot.width, height: g.plot.height, class: 'frame' }));
  if (s.reachable) chart.append(targetHandle(s, g, s.reachable));
  chart.addEventListener('keydown', (e) => chartKey(e));
  chart.addEventListener('wheel', (e) => {
    if (!state || !(e.ctrlKey || e.metaKey || Math.abs(e.deltaY) > Math.abs(e.deltaX))) return;
    e.preventDefault();
    const box = chart.getBoundingClientRect();
    const xInPlot = ((e.clientX - box.left) / box.width) * MAP_SIZE.width - g.plot.x;
    setView(
      zoomView(view, state.rounds.length, e.deltaY > 0 ? 1.25 : 0.8, Math.max(0, Math.min(1, xInPlot / g.plot.width))),
    );
  });
  return chart;
}

/** Hatching for summarized rounds, cross-hatching for dropped ones: the plan reads without colour. */
function patternDefs(): SVGDefsElement {
  const defs = svg('defs', {});
  const hatch = svg('pattern', {
    id: 'pat-summarize',
    width: 6,
    height: 6,
    patternUnits: 'userSpaceOnUse',
    patternTransform: 'rotate(45)',
  });
  hatch.append(svg('line', { x1: 0, y1: 0, x2: 0, y2: 6, class: 'pat-line' }));
  const cross = svg('pattern', {
    id: 'pat-drop',
    width: 6,
    height: 6,
    patternUnits: 'userSpaceOnUse',
    patternTransform: 'rotate(45)',
  });
  cross.append(
    svg('line', { x1: 0, y1: 0, x2: 0, y2: 6, class: 'pat-line' }),
    svg('line', { x1: 0, y1: 3, x2: 6, y2: 3, class: 'pat-line' }),
  );
  defs.append(hatch, cross);
  return defs;
}

function targetHandle(s: MapState, g: MapGeometry, reachable: { floor: number; max: number }): SVGGElement {
  // The line moves only within the targets that mean something: the floor up to the context now (mapChart.clampTarget).
  const lo = clampTarget(reachable, 0);
  const hi = clampTarget(reachable, Number.MAX_SAFE_INTEGER);
  const tokens = dragTarget ?? s.targetTokens;
  const line = g.lines.find((l) => l.kind === 'target');
  const y =
    dragTarget !== null
      ? g.plot.y + g.plot.height - (Math.min(dragTarget, g.maxY) / g.maxY) * g.plot.height
      : line
        ? line.y
        : g.plot.y;
  const group = svg('g', {
    class: 'target-handle',
    id: 'target',
    tabindex: 0,
    role: 'slider',
    'aria-label': 'Compaction target (tokens): drag, or Up and Down arrows, to replan',
    'aria-valuemin': lo,
    'aria-valuemax': hi,
    'aria-valuenow': tokens,
    'data-tokens': tokens,
  });
  const drawn = svg('line', { x1: g.plot.x, x2: g.plot.x + g.plot.width, y1: y, y2: y, class: 'ref ref-target' });
  const grip = svg('rect', { x: g.plot.x, y: y - 6, width: g.plot.width, height: 12, class: 'grip' });
  const text = svg(
    'text',
    { x: g.plot.x + g.plot.width - 4, y: y - 5, class: 'label label-end target-label' },
    `target ${shortTokens(tokens)}${s.planned ? '' : ' (drag to plan)'}`,
  );
  group.append(grip, drawn, text);
  const moveTo = (wanted: number) => {
    const t = clampTarget(reachable, wanted);
    dragTarget = t;
    const ny = g.plot.y + g.plot.height - (Math.min(t, g.maxY) / g.maxY) * g.plot.height;
    for (const e of [drawn]) {
      e.setAttribute('y1', String(ny));
      e.setAttribute('y2', String(ny));
    }
    grip.setAttribute('y', String(ny - 6));
    text.setAttribute('y', String(ny - 5));
    // Said where the line stops, so a drag that will not go further is not a mystery.
    text.textContent = `target ${shortTokens(t)}${t === lo ? ' (the floor)' : t === hi ? ' (the context now: nothing to compact)' : ''}`;
    group.setAttribute('aria-valuenow', String(t));
    group.setAttribute('data-tokens', String(t));
  };
  moveTarget = moveTo;
  if (dragPointer !== null) group.classList.add('dragging');
  group.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    e.stopPropagation();
    dragPointer = e.pointerId;
    group.classList.add('dragging');
  });
  let commit: ReturnType<typeof setTimeout> | undefined;
  group.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
    e.preventDefault();
    e.stopPropagation();
    const step = e.shiftKey ? 10_000 : 1_000;
    const now = dragTarget ?? s.targetTokens;
    moveTo(now + (e.key === 'ArrowUp' ? step : -step));
    if (commit) clearTimeout(commit);
    commit = setTimeout(() => sendTarget(dragTarget ?? s.targetTokens), 400);
  });
  return group;
}

/** The y of a client point in the chart's own coordinates. */
function svgY(node: SVGGraphicsElement, clientY: number): number {
  const owner = node.ownerSVGElement;
  const box = owner?.getBoundingClientRect();
  if (!owner || !box || box.height === 0) return clientY;
  return ((clientY - box.top) / box.height) * MAP_SIZE.height;
}

function chartKey(e: KeyboardEvent): void {
  if (!state || !geometry) return;
  const n = state.rounds.length;
  const g = geometry;
  const span = view.to - view.from;
  const current = selected !== null ? barOf(g, selected) : -1;
  const go = (bar: number) => {
    const b = g.bars[Math.max(0, Math.min(g.bars.length - 1, bar))];
    if (b) selectRound(b.peak);
  };
  switch (e.key) {
    case 'ArrowRight':
      if (current === g.bars.length - 1 && view.to < n) setView(panView(view, n, Math.max(1, Math.round(span / 4))));
      else go(current + 1);
      break;
    case 'ArrowLeft':
      if (current === 0 && view.from > 0) setView(panView(view, n, -Math.max(1, Math.round(span / 4))));
      else go(current < 0 ? g.bars.length - 1 : current - 1);
      break;
    case 'Home':
      go(0);
      break;
    case 'End':
      go(g.bars.length - 1);
      break;
    case '+':
    case '=':
      setView(zoomView(view, n, 0.5, current >= 0 ? (current + 0.5) / g.bars.length : 0.5));
      break;
    case '-':
      setView(zoomView(view, n, 2));
      break;
    case 'PageUp':
      setView(panView(view, n, -Math.max(1, Math.round(span / 2))));
      break;
    case 'PageDown':
      setView(panView(view, n, Math.max(1, Math.round(span / 2))));
      break;
    case 'Enter':
      if (selected !== null) send({ type: 'revealRound', round: selected });
      break;
    default:
      return;
  }
  e.preventDefault();
}

function selectRound(round: number): void {
  selected = round;
  if (detail?.round !== round) {
    detail = undefined;
    exact = undefined;
  }
  send({ type: 'selectRound', round });
  redraw(['chart', 'detail']);
  document.getElementById('map-chart')?.focus();
}

function renderLegend(s: MapState, g: MapGeometry): HTMLElement {
  const items = s.series.map((x) => el('li', {}, el('span', { class: `swatch s${x.colour % 16}` }), x.label));
  items.push(el('li', {}, el('span', { class: 'swatch usage' }), 'usage (what the API reported)'));
  items.push(el('li', {}, el('span', { class: 'swatch strip-summarize' }), '[summarize] (hatched)'));
  items.push(el('li', {}, el('span', { class: 'swatch strip-drop' }), '[drop] (cross-hatched)'));
  items.push(el('li', {}, el('span', { class: 'swatch ref-boundary' }), 'compaction boundary'));
  if (s.reachable)
    items.push(
      el(
        'li',
        {},
        el('span', { class: 'swatch ref-floor' }),
        `floor ≈${shortTokens(s.reachable.floor)}: no target can take the context below it`,
      ),
    );
  const offChart = {
    window: `context window ${shortTokens(s.contextWindow ?? 0)}`,
    autoCompact: `auto-compact ≈${shortTokens(s.autoCompactAt ?? 0)}`,
    floor: `floor ≈${shortTokens(s.reachable?.floor ?? 0)}`,
    target: `target ${shortTokens(s.targetTokens)}`,
  };
  for (const k of g.offChart) items.push(el('li', { class: 'muted' }, `${offChart[k]} (above the chart)`));
  return el('ul', { class: 'legend' }, ...items);
}

// ---------------------------------------------------------------------------------------------
// Selected round

function renderDetail(): HTMLElement {
  const section = el('section', { attrs: { 'aria-labelledby': 'detail-h', id: 'detail' } });
  if (selected === null || !state) {
    section.append(
      el('h2', { attrs: { id: 'detail-h' } }, 'Round'),
      el('p', { class: 'muted' }, 'Select a bar (click, or arrow keys in the chart) to read its round.'),
    );
    return section;
  }
  const r = state.rounds[selected];
  const total = r.stack.reduce((a, b) => a + b, 0);
  // The figure the Rounds tree and the CLI show for this round (usage where the file records it); the bar's estimate by
  // category beside it, labelled, when it is not the same figure.
  const context =
    r.contextSource === 'usage'
      ? `context after it ${num(r.context)} tokens (usage)${Math.round(total) !== r.context ? `; estimate by category ≈${num(total)}` : ''}`
      : `context after it ≈${num(r.context)} tokens (estimate)`;
  section.append(
    el(
      'h2',
      { attrs: { id: 'detail-h' } },
      `Round #${selected} `,
      link('reveal', 'Show this round in the tree and the editor', () =>
        send({ type: 'revealRound', round: selected ?? 0 }),
      ),
    ),
    el(
      'p',
      { class: 'muted' },
      `${r.label} · ${context} · [${MARK_TEXT[r.mark]}]${r.costUsd !== null ? ` · response cost ${usd(r.costUsd)}` : ''}`,
    ),
  );
  if (!detail || detail.round !== selected) {
    section.append(el('p', { class: 'muted busy' }, 'Reading the round…'));
    return section;
  }
  const list = el('ol', { class: 'items' });
  detail.items.forEach((item, i) => list.append(renderItem(item, exact?.[i])));
  section.append(list);
  if (!detail.items.length) section.append(el('p', { class: 'muted' }, 'This round holds no message content.'));
  return section;
}

const KIND_TEXT: Record<DetailItem['kind'], string> = {
  prompt: 'User',
  text: 'Assistant',
  thinking: 'Thinking',
  toolCall: 'Tool call',
  toolResult: 'Tool result',
  attachment: 'Attachment',
  summary: 'Earlier summary',
  image: 'Image',
};

function renderItem(item: DetailItem, exactCount: number | null | undefined): HTMLElement {
  const figures = el(
    'span',
    { class: 'figures' },
    `${num(item.chars)} chars · ≈${num(item.estimate)} tokens (estimate)`,
    exactCount === undefined
      ? null
      : el(
          'span',
          { class: 'exact', title: state?.exactNote ?? '' },
          ` · ${state?.exactLabel ?? 'o200k count'}: ${exactCount === null ? '–' : num(exactCount)}`,
        ),
  );
  const head = el(
    'div',
    { class: 'item-head' },
    el('strong', {}, KIND_TEXT[item.kind]),
    item.tool ? ` ${item.tool}` : null,
    item.isError ? el('span', { class: 'error' }, ' [error]') : null,
    ' · ',
    link(`line ${item.line}`, `Reveal line ${item.line}`, () => send({ type: 'revealLine', line: item.line })),
    ' · ',
    figures,
  );
  const pre = el('pre', { class: 'item-body' });
  pre.textContent = item.text + (item.truncated ? `\n… (${num(item.chars - item.text.length)} more characters)` : '');
  const collapsed =
    item.kind === 'thinking' ||
    item.kind === 'toolResult' ||
    item.kind === 'attachment' ||
    item.kind === 'summary' ||
    item.chars > 2000;
  const body = collapsed ? el('details', {}, el('summary', {}, `show (${num(item.chars)} chars)`), pre) : pre;
  return el('li', { class: `item item-${item.kind}` }, head, item.kind === 'image' ? null : body);
}

// ---------------------------------------------------------------------------------------------
// Tables and cost

function renderTools(s: MapState): HTMLElement {
  const section = el(
    'section',
    { attrs: { 'aria-labelledby': 'tools-h' } },
    el('h2', { attrs: { id: 'tools-h' } }, 'By tool'),
  );
  if (!s.tools.length) {
    section.append(el('p', { class: 'muted' }, 'No tool calls.'));
    return section;
  }
  const head = el(
    'tr',
    {},
    ...['Tool', 'Calls', 'Tokens in context', 'Share of context', 'Tokens, all rounds', 'Share of all'].map((h) =>
      el('th', { attrs: { scope: 'col' } }, h),
    ),
  );
  const rows = s.tools.map((t) =>
    el(
      'tr',
      {},
      el('td', {}, t.name),
      el('td', { class: 'num' }, num(t.calls)),
      el('td', { class: 'num' }, num(t.activeTokens)),
      el('td', { class: 'num' }, pct(t.activeShare)),
      el('td', { class: 'num' }, num(t.allTokens)),
      el('td', { class: 'num' }, pct(t.allShare)),
    ),
  );
  section.append(el('table', { attrs: { id: 'tools-table' } }, el('thead', {}, head), el('tbody', {}, ...rows)));
  return section;
}

const ITEM_TEXT = { toolResult: 'result', toolCall: 'call', thinking: 'thinking', images: 'images' } as const;

/** One-click steering for an item: drop its round; a tool result can instead be replaced by its preview. */
function itemActions(x: MapState['largest'][number]): HTMLButtonElement[] {
  const out = [
    button(
      'Drop round',
      () => send({ type: 'dropRound', round: x.round }),
      `Decide to drop round #${x.round} in the next compaction`,
      { 'aria-label': `Drop round #${x.round}`, 'data-action': 'drop-round' },
    ),
  ];
  const id = x.toolUseId;
  if (x.kind === 'toolResult' && id) {
    out.push(
      button(
        'Use preview',
        () => send({ type: 'previewResult', toolUseId: id }),
        'Decide to replace this tool result by its preview in the next compaction',
        {
          'aria-label': `Replace the ${x.tool ?? 'tool'} result of round #${x.round} by its preview`,
          'data-action': 'preview-result',
        },
      ),
    );
  }
  return out;
}

function renderLargest(s: MapState): HTMLElement {
  const section = el(
    'section',
    { attrs: { 'aria-labelledby': 'largest-h' } },
    el('h2', { attrs: { id: 'largest-h' } }, `Largest items in the active context (${s.largest.length})`),
  );
  if (!s.largest.length) {
    section.append(el('p', { class: 'muted' }, 'None.'));
    return section;
  }
  const head = el(
    'tr',
    {},
    ...['Tokens', 'What', 'Round', 'Line', 'Actions'].map((h) => el('th', { attrs: { scope: 'col' } }, h)),
  );
  const rows = s.largest.map((x) =>
    el(
      'tr',
      {},
      el('td', { class: 'num' }, num(x.tokens)),
      el('td', {}, `${x.tool ? `${x.tool} ` : ''}${ITEM_TEXT[x.kind]}`),
      el(
        'td',
        {},
        link(`#${x.round}`, 'Read this round', () => selectRound(x.round)),
      ),
      el(
        'td',
        {},
        link(String(x.line), 'Reveal in the editor', () => send({ type: 'revealLine', line: x.line })),
      ),
      el('td', { class: 'row-actions' }, ...itemActions(x)),
    ),
  );
  section.append(el('table', { attrs: { id: 'largest-table' } }, el('thead', {}, head), el('tbody', {}, ...rows)));
  return section;
}

/** The compactions the file records: who compacted and how, what it left against the next request, what it cost. */
function renderCompactions(s: MapState): HTMLElement {
  const section = el(
    'section',
    { attrs: { 'aria-labelledby': 'compactions-h' } },
    el('h2', { attrs: { id: 'compactions-h' } }, `Compactions (${s.compactions.length})`),
  );
  if (!s.compactions.length) {
    section.append(el('p', { class: 'muted' }, 'None: the file records no compact boundary.'));
    return section;
  }
  const items = s.compactions.map((c) =>
    el(
      'li',
      { class: 'compaction' },
      link(`Line ${c.line}`, 'Reveal the compact boundary in the editor', () =>
        send({ type: 'revealLine', line: c.line }),
      ),
      `: ${c.title}: ${c.figures}; its own request cost ${c.cost}. Rounds before it are history; `,
      link(`read #${c.round}`, 'Read the summary round', () => selectRound(c.round)),
      '.',
    ),
  );
  section.append(el('ul', { attrs: { id: 'compactions-list' } }, ...items));
  return section;
}

function renderCost(s: MapState): HTMLElement {
  const c = s.cost;
  const section = el(
    'section',
    { attrs: { 'aria-labelledby': 'cost-h' } },
    el('h2', { attrs: { id: 'cost-h' } }, 'Cost'),
  );
  section.append(
    el(
      'p',
      { attrs: { id: 'cost-total' } },
      `${usd(c.totalUsd)}${c.assumed ? ' (assumed prices)' : ''} over ${num(c.responses)} responses: input ${usd(c.inputUsd)}, output ${usd(c.outputUsd)}, cache writes ${usd(c.cacheWriteUsd)}, cache reads ${usd(c.cacheReadUsd)}.`,
    ),
  );
  if (c.byModel.length)
    section.append(el('ul', {}, ...c.byModel.map((m) => el('li', {}, `${m.model}: ${usd(m.usd)}`))));
  if (c.agentUsd !== null)
    section.append(
      el(
        'p',
        { attrs: { id: 'cost-agent' } },
        `The agent's own figure (${c.agentSource ?? 'its cost-state records'}): ${usd(c.agentUsd)}.`,
      ),
    );
  section.append(el('p', { attrs: { id: 'cost-next-turn' } }, c.nextTurn));
  for (const note of c.notes) section.append(el('p', { class: 'warning' }, note));
  section.append(el('p', { class: 'muted' }, `Prices: ${c.priceSource} (${c.priceDate}).`));
  return section;
}

window.addEventListener('message', (event: MessageEvent) => {
  const msg = parseHostToMap(event.data);
  if (!msg) return;
  switch (msg.type) {
    case 'state':
      receiveState(msg.state);
      break;
    case 'empty':
    case 'busy':
      showMessage(msg.type, msg.message);
      break;
    case 'round':
      if (msg.detail.round === selected) {
        detail = msg.detail;
        exact = undefined;
        redraw(['detail']);
      }
      break;
    case 'exact':
      if (detail && msg.round === detail.round && msg.counts.length === detail.items.length) {
        exact = msg.counts;
        redraw(['detail']);
      }
      break;
  }
});

send({ type: 'ready' });
