// Budget Preview webview (browser bundle). Draws what the host sends: the chart of context
// size per round, the per-wire-message totals and every tool-result decision with its exact
// preview text. All transcript text goes in through text nodes (never innerHTML), so a tool
// result holding `<script>` or `<img onerror>` shows as characters.
import { CHART_FONT_SIZE, chartGeometry, chartLayout, type ChartGeometry, type XRange } from './chart';
import { button, el, svg } from './dom';
import { num, vscode } from './webviewApi';
import {
  USER_ROUND_MARK,
  parseHostToWebview,
  toolResultMark,
  type BudgetState,
  type ChartData,
  type Decision,
  type HostToWebview,
  type ToolResultRow,
  type WebviewToHost,
} from './protocol';

const PAGE = 200;

/** 'user': the results the user decided (Keep in Full / Replace by Preview). */
type Filter = 'all' | Decision | 'user';
interface UiState {
  filter: Filter;
  shown: number;
  /** The chart's x range: the context now (default) or the whole history. */
  range: XRange;
}
let ui: UiState = { filter: 'all', shown: PAGE, range: 'active' };
{
  const saved = vscode.getState() as Partial<UiState> | undefined;
  if (
    saved &&
    (saved.filter === 'all' ||
      saved.filter === 'kept' ||
      saved.filter === 'replaced' ||
      saved.filter === 'frozen' ||
      saved.filter === 'user')
  )
    ui.filter = saved.filter;
  if (saved && (saved.range === 'active' || saved.range === 'history')) ui.range = saved.range;
}
let current: BudgetState | undefined;

function send(msg: WebviewToHost): void {
  vscode.postMessage(msg);
}

function root(): HTMLElement {
  return document.getElementById('app') ?? document.body;
}

function showMessage(kind: 'empty' | 'busy', message: string): void {
  current = undefined;
  chartObserver?.disconnect();
  root().replaceChildren(el('p', { class: kind === 'busy' ? 'muted busy' : 'muted' }, message));
}

function render(state: BudgetState): void {
  current = state;
  const app = root();
  const header = el(
    'header',
    {},
    el('h1', {}, 'Budget Preview: ', el('span', { class: 'file', title: state.file }, state.fileName)),
    el('p', { class: state.nothingToDo ? 'summary ok' : 'summary' }, state.summary),
    el(
      'p',
      { class: 'muted' },
      `Rounds: ${num(state.counts.keepRounds)} kept, ${num(state.counts.summarizeRounds)} summarized, ${num(state.counts.dropRounds)} dropped. ` +
        `Tool results: ${num(state.counts.kept)} kept, ${num(state.counts.replaced)} replaced by a preview` +
        (state.counts.frozen
          ? `, ${num(state.counts.frozen)} replaced in an earlier compaction (left as they are, so the prompt stays the same)`
          : '') +
        '.',
    ),
    el(
      'div',
      { class: 'actions' },
      state.nothingToDo
        ? null
        : button('Compact…', () => send({ type: 'compact' }), 'Compact this transcript (asks for confirmation)'),
      button('Refresh', () => send({ type: 'refresh' }), 'Re-read the transcript'),
    ),
  );
  const notes = state.notes.length ? el('ul', { class: 'notes' }, ...state.notes.map((n) => el('li', {}, n))) : null;
  app.replaceChildren(
    header,
    ...(notes ? [notes] : []),
    ...(state.userRounds.length ? [renderUserRounds(state)] : []),
    renderChart(state),
    renderWire(state),
    renderTools(state),
  );
}

/** The rounds the user decided, marked as the Rounds tree marks them; each reveals its round. */
function renderUserRounds(state: BudgetState): HTMLElement {
  const section = el(
    'section',
    { class: 'user-rounds', attrs: { 'aria-labelledby': 'user-h' } },
    el('h2', { attrs: { id: 'user-h' } }, `Your decisions (${num(state.userRounds.length)} rounds)`),
  );
  const list = el('ol', { class: 'user-rounds-list' });
  for (const r of state.userRounds) {
    const link = el('a', { attrs: { href: '#' }, title: `Reveal round #${r.round}` }, `#${r.round}`);
    link.addEventListener('click', (e) => {
      e.preventDefault();
      send({ type: 'revealRound', round: r.round });
    });
    list.append(
      el(
        'li',
        { class: `user-round user-${r.mark}` },
        el('span', { class: 'user-mark' }, USER_ROUND_MARK[r.mark]),
        ' ',
        link,
        ' ',
        r.label,
      ),
    );
  }
  section.append(list);
  return section;
}

function renderChart(state: BudgetState): HTMLElement {
  const section = el(
    'section',
    { class: 'chart-section', attrs: { 'aria-labelledby': 'chart-h' } },
    el('h2', { attrs: { id: 'chart-h' } }, 'Context size per round'),
  );
  const data = state.chart;
  if (!data.points.length) {
    section.append(el('p', { class: 'muted' }, 'No rounds.'));
    return section;
  }
  const wrap = el('div', { class: 'chart-wrap' });
  const caption = el('p', { class: 'muted chart-range', attrs: { 'aria-live': 'polite' } });
  const firstActive = data.points.findIndex((p) => p.inContext);
  const history = firstActive > 0;
  const controls = el('div', { class: 'chart-controls' });
  let toggle: HTMLButtonElement | null = null;
  if (history) {
    // One toggle with a fixed name and aria-pressed (how screen readers expect a toggle button to read).
    toggle = button(
      'Show whole history',
      () => {
        ui = { ...ui, range: ui.range === 'history' ? 'active' : 'history' };
        vscode.setState(ui);
        draw();
      },
      'Show the rounds before the last compact boundary too (they are not in the context now)',
    );
    toggle.classList.add('secondary', 'range-toggle');
    controls.append(toggle);
  }
  controls.append(caption);
  const draw = () => {
    const width = wrap.clientWidth;
    if (!(width > 0)) return;
    const g = chartGeometry(data, chartLayout(width, ui.range, measureText()));
    wrap.replaceChildren(chartSvg(data, g));
    drawnWidth = width;
    toggle?.setAttribute('aria-pressed', String(g.range === 'history'));
    caption.textContent =
      g.range === 'active'
        ? `Rounds #${g.firstRound}–#${g.lastRound}, the context now (${num(g.hiddenRounds)} older ${g.hiddenRounds === 1 ? 'round' : 'rounds'}, before the last compact boundary, not shown).`
        : history
          ? `All ${num(data.points.length)} rounds; the context now starts at round #${data.points[firstActive].round}.`
          : `Rounds #${g.firstRound}–#${g.lastRound}.`;
  };
  let drawnWidth = -1;
  chartObserver?.disconnect();
  chartObserver = new ResizeObserver(() => {
    if (Math.abs(wrap.clientWidth - drawnWidth) >= 1) draw();
  });
  chartObserver.observe(wrap);
  const legend = el(
    'ul',
    { class: 'legend' },
    el('li', {}, el('span', { class: 'swatch usage' }), 'usage (API truth)'),
    el('li', {}, el('span', { class: 'swatch estimate' }), 'estimate'),
    el('li', {}, el('span', { class: 'swatch target' }), `target ${num(data.targetTokens)}`),
    data.floorTokens !== null
      ? el(
          'li',
          {
            title:
              'Every request carries the system prompt and tool definitions: no compaction reaches a target below this line',
          },
          el('span', { class: 'swatch floor' }),
          `system prompt + tools ~${num(data.floorTokens)} (no target below it is reachable)`,
        )
      : null,
    data.points.some((p) => p.mark === 'summarize')
      ? el('li', {}, el('span', { class: 'swatch band-summarize' }), '[summarize]')
      : null,
    data.points.some((p) => p.mark === 'drop')
      ? el('li', {}, el('span', { class: 'swatch band-drop' }), '[drop]')
      : null,
    data.cutAfterRound !== null
      ? el('li', {}, el('span', { class: 'swatch cut' }), `cut after round #${data.cutAfterRound}`)
      : null,
  );
  section.append(controls, wrap, legend);
  return section;
}

let chartObserver: ResizeObserver | undefined;
let textContext: CanvasRenderingContext2D | null | undefined;

/** Width of a chart label in the webview's real font (the chart places labels by it). */
function measureText(): ((text: string) => number) | undefined {
  textContext ??= document.createElement('canvas').getContext('2d');
  const ctx = textContext;
  if (!ctx) return undefined;
  ctx.font = `${CHART_FONT_SIZE}px ${getComputedStyle(document.body).fontFamily}`;
  return (text) => ctx.measureText(text).width;
}

function chartSvg(data: ChartData, g: ChartGeometry): SVGSVGElement {
  const chart = svg('svg', {
    viewBox: g.viewBox,
    width: g.width,
    height: g.height,
    class: 'chart',
    role: 'img',
    'aria-label': `Context size per round; target ${num(data.targetTokens)} tokens`,
  });
  chart.append(
    svg(
      'title',
      {},
      `Context ${num(data.preTokens)} → ${num(data.postTokens)} tokens after compaction; target ${num(data.targetTokens)}`,
    ),
  );
  for (const b of g.bands)
    chart.append(
      svg('rect', { x: b.x, y: g.plot.y, width: b.width, height: g.plot.height, class: `band band-${b.mark}` }),
    );
  for (const t of g.yTicks) {
    chart.append(svg('line', { x1: g.plot.x, x2: g.plot.x + g.plot.width, y1: t.pos, y2: t.pos, class: 'grid' }));
    chart.append(svg('text', { x: g.plot.x - 6, y: t.pos + CHART_FONT_SIZE * 0.35, class: 'tick tick-y' }, t.label));
  }
  for (const t of g.xTicks)
    chart.append(svg('text', { x: t.pos, y: t.box.y + CHART_FONT_SIZE, class: 'tick tick-x' }, t.label));
  for (const x of g.boundaryXs)
    chart.append(svg('line', { x1: x, x2: x, y1: g.plot.y, y2: g.plot.y + g.plot.height, class: 'boundary' }));
  chart.append(svg('rect', { x: g.plot.x, y: g.plot.y, width: g.plot.width, height: g.plot.height, class: 'frame' }));
  if (g.floorY !== null)
    chart.append(
      svg('line', { x1: g.plot.x, x2: g.plot.x + g.plot.width, y1: g.floorY, y2: g.floorY, class: 'floor' }),
    );
  if (g.targetY !== null)
    chart.append(
      svg('line', { x1: g.plot.x, x2: g.plot.x + g.plot.width, y1: g.targetY, y2: g.targetY, class: 'target' }),
    );
  if (g.estimatePath) chart.append(svg('path', { d: g.estimatePath, class: 'line estimate' }));
  if (g.usagePath) chart.append(svg('path', { d: g.usagePath, class: 'line usage' }));
  for (const p of g.usagePoints) {
    const dot = svg('circle', { cx: p.x, cy: p.y, r: 2.5, class: 'dot' });
    dot.append(svg('title', {}, `Round #${p.round}: ${num(p.value)} tokens (usage)`));
    dot.addEventListener('click', () => send({ type: 'revealRound', round: p.round }));
    chart.append(dot);
  }
  if (g.cutX !== null)
    chart.append(svg('line', { x1: g.cutX, x2: g.cutX, y1: g.plot.y, y2: g.plot.y + g.plot.height, class: 'cut' }));
  // Labels last, over the lines (each has a halo in the background colour).
  for (const l of g.labels)
    chart.append(svg('text', { x: l.x, y: l.y, class: `label label-${l.kind} anchor-${l.anchor}` }, l.text));
  return chart;
}

function renderWire(state: BudgetState): HTMLElement {
  const section = el(
    'section',
    { attrs: { 'aria-labelledby': 'wire-h' } },
    el('h2', { attrs: { id: 'wire-h' } }, `Messages with tool results, as sent (${num(state.wireMessages.length)})`),
  );
  section.append(
    el(
      'p',
      { class: 'muted' },
      'Each row is one message as the agent sends it to the API: the tool results it carries must fit the per-message limit, so the largest new ones are replaced by previews.',
    ),
  );
  if (!state.wireMessages.length) {
    section.append(el('p', { class: 'muted' }, 'No outbound messages carry tool results.'));
    return section;
  }
  const head = el(
    'tr',
    {},
    ...['#', 'Round', 'Lines', 'Before (chars)', 'After (chars)', 'Limit'].map((h) =>
      el('th', { attrs: { scope: 'col' } }, h),
    ),
  );
  const rows = state.wireMessages.map((w) => {
    const over = w.limit !== null && w.afterChars > w.limit;
    const changed = w.afterChars !== w.beforeChars;
    const round = el('a', { attrs: { href: '#' } }, `#${w.round}`);
    round.addEventListener('click', (e) => {
      e.preventDefault();
      send({ type: 'revealRound', round: w.round });
    });
    const lines = w.lines.length > 3 ? `${w.lines.slice(0, 3).join(', ')}, … (${w.lines.length})` : w.lines.join(', ');
    return el(
      'tr',
      { class: over ? 'over' : changed ? 'changed' : '' },
      el('td', {}, String(w.index)),
      el('td', {}, round),
      el('td', {}, lines),
      el('td', { class: 'num' }, num(w.beforeChars)),
      el(
        'td',
        { class: 'num' },
        `${num(w.afterChars)}${changed ? ` (${w.afterChars < w.beforeChars ? '−' : '+'}${num(Math.abs(w.beforeChars - w.afterChars))})` : ''}`,
      ),
      el('td', { class: 'num' }, w.limit === null ? 'none' : `${num(w.limit)}${over ? ' [over]' : ''}`),
    );
  });
  section.append(el('div', { class: 'table-wrap' }, el('table', {}, el('thead', {}, head), el('tbody', {}, ...rows))));
  return section;
}

function renderTools(state: BudgetState): HTMLElement {
  const section = el(
    'section',
    { attrs: { 'aria-labelledby': 'tools-h' } },
    el('h2', { attrs: { id: 'tools-h' } }, `Tool results (${num(state.toolResults.length)})`),
  );
  const select = el('select', { attrs: { 'aria-label': 'Show decisions' } });
  for (const [value, label] of [
    ['all', 'All'],
    ['replaced', `Replaced (${state.counts.replaced})`],
    ['frozen', `Replaced earlier (${state.counts.frozen})`],
    ['kept', `Kept (${state.counts.kept})`],
    ['user', `By you (${state.toolResults.filter((t) => t.byUser).length})`],
  ] as const) {
    const o = el('option', {}, label);
    o.value = value;
    o.selected = ui.filter === value;
    select.append(o);
  }
  select.addEventListener('change', () => {
    ui = { ...ui, filter: select.value as Filter, shown: PAGE };
    vscode.setState(ui);
    if (current) render(current);
  });
  section.append(el('label', { class: 'filter' }, 'Show: ', select));
  const rows = state.toolResults.filter(
    (t) => ui.filter === 'all' || (ui.filter === 'user' ? t.byUser : t.decision === ui.filter),
  );
  const list = el('ol', { class: 'tools' });
  for (const t of rows.slice(0, ui.shown)) list.append(toolItem(t));
  section.append(list);
  if (rows.length > ui.shown) {
    section.append(
      button(`Show ${Math.min(PAGE, rows.length - ui.shown)} more of ${num(rows.length - ui.shown)}`, () => {
        ui = { ...ui, shown: ui.shown + PAGE };
        if (current) render(current);
      }),
    );
  }
  if (!rows.length) section.append(el('p', { class: 'muted' }, 'None.'));
  return section;
}

function toolItem(t: ToolResultRow): HTMLElement {
  const round = el('a', { attrs: { href: '#' }, title: `Reveal line ${t.line}` }, `round #${t.round}, line ${t.line}`);
  round.addEventListener('click', (e) => {
    e.preventDefault();
    send({ type: 'revealLine', line: t.line });
  });
  const head = el(
    'div',
    { class: 'tool-head' },
    el(
      'span',
      { class: `decision decision-${t.decision}${t.byUser ? ' by-user' : ''}` },
      toolResultMark(t.decision, t.byUser),
    ),
    ' ',
    el('strong', {}, t.toolName),
    ' · ',
    round,
    ` · message ${t.wireMessage} · ${num(t.originalChars)} chars`,
  );
  const item = el('li', { class: `tool tool-${t.decision}` }, head, el('div', { class: 'muted reason' }, t.reason));
  if (t.preview !== null) {
    const pre = el('pre', { class: 'preview' });
    pre.textContent = t.preview; // exact text, never parsed as HTML
    const details = el('details', {}, el('summary', {}, `Replacement text (${num(t.preview.length)} chars)`), pre);
    if (t.fullTextPath)
      details.append(el('p', { class: 'muted' }, 'Full original stored at ', el('code', {}, t.fullTextPath)));
    item.append(details);
  }
  return item;
}

window.addEventListener('message', (event: MessageEvent) => {
  const msg: HostToWebview | null = parseHostToWebview(event.data);
  if (!msg) return;
  if (msg.type === 'state') render(msg.state);
  else showMessage(msg.type, msg.message);
});

send({ type: 'ready' });
