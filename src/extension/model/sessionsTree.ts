// The Sessions view as plain data: projects (real paths, the workspace's first) holding their sessions, newest first,
// each with its title, last activity, size, rounds and cost (once read in the background), context fill, a mark when
// it is being written now and one when it is a fork. At the side bar's default width a row shows ~35 characters and
// cuts the rest: the title is shortened and the row's figures start with what matters most (fill, cost), the rest of
// them and the whole title are in the tooltip.
// Pure: no `vscode` import.
import { basename } from 'node:path';
import { dollars, span } from '../../core/cache';
import { costFigure, costNotes, type CostFacts } from '../../core/cost';
import { type ForkOrigin, type ProjectGroup, type SessionSummary } from '../../core/sessionList';
import { sessionContext, type SessionStats } from '../../core/sessionStats';
import { PRICES_SETTING_HINT } from './mapState';
import { formatBytes, formatNumber, formatUsd, oneLine, plural, shortNumber } from './format';
import type { StatsState } from './sessionStatsQueue';
import { AGENT_IDS, agentModule, agentName, capabilitiesOf, type AgentId } from '../../core/formats/registry';
import { timeAgo } from './sessions';

export interface SessionNode {
  id: string;
  /** An agent (when the list holds several agents' sessions), a project of an agent, or a session. */
  kind: 'agent' | 'project' | 'session';
  label: string;
  description: string;
  tooltip: string;
  icon: string;
  color?: string;
  contextValue: string;
  collapsible: 'none' | 'collapsed' | 'expanded';
  /** The session's transcript (session nodes). */
  file?: string;
  /** A fork's original transcript (null: a fork whose original is not listed; absent: not a fork). */
  forkOf?: string | null;
  project: string;
  children?: SessionNode[];
}

/** `▰▰▰▱▱` for a share from 0 to 1. */
export function fillBar(share: number, width = 5): string {
  const n = Math.max(0, Math.min(width, Math.round(share * width)));
  return '▰'.repeat(n) + '▱'.repeat(width - n);
}

export function fillText(s: Pick<SessionSummary, 'contextTokens' | 'contextWindow'>): string | null {
  // A window of 0: the agent does not say its model's window (there is no fill to show).
  if (s.contextTokens === null || s.contextWindow <= 0) return null;
  const share = s.contextTokens / s.contextWindow;
  return `${fillBar(share)} ${shortNumber(s.contextTokens)} / ${shortNumber(s.contextWindow)} · ${Math.round(share * 100)}%`;
}

function costOf(s: SessionStats): CostFacts {
  return {
    total: { usd: s.costUsd },
    unpriced: s.unpriced,
    assumed: s.assumed,
    agent: s.agent,
    fastUnknown: s.fastUnknown,
    copiedResponses: s.copiedResponses,
    agentIncludesCopies: s.agentIncludesCopies,
    unanswered: s.unanswered,
    unrecordedCompactions: s.unrecordedCompactions,
  };
}

/** The fill as a share, for the start of a row (`40%`), or null when not known. */
export function fillShare(s: Pick<SessionSummary, 'contextTokens' | 'contextWindow'>): string | null {
  return s.contextTokens === null || s.contextWindow <= 0
    ? null
    : `${Math.round((s.contextTokens / s.contextWindow) * 100)}%`;
}

/** The cost for the start of a row (`$1.23`; `≈` while figures of an earlier size are shown), or null. */
export function costText(state: StatsState): string | null {
  return state.kind === 'ready' ? `${state.stale ? '≈' : ''}${costFigure(costOf(state.stats), formatUsd)}` : null;
}

/**
 * A session row's label: its fill and cost first, then its title. The tree cuts a row at its end, at whatever width the
 * side bar has, so the figures are whole at any width and the title takes the room that is left (the whole title is
 * in the tooltip). A title cut to a fixed length hid the title in a wide side bar and still lost the cost in a narrow
 * or deeply nested one.
 */
export function sessionRowLabel(
  s: Pick<SessionSummary, 'title' | 'contextTokens' | 'contextWindow'>,
  stats: StatsState,
): string {
  return [fillShare(s), costText(stats), oneLine(s.title, 100)].filter(Boolean).join(' · ');
}

/** Rounds and cost for the description (`12 rounds · $1.23`; `≈` while figures of an earlier size are shown), or null. */
export function statsText(state: StatsState): string | null {
  if (state.kind !== 'ready') return null;
  const { rounds } = state.stats;
  return `${state.stale ? '≈' : ''}${plural(rounds, 'round')} · ${costFigure(costOf(state.stats), formatUsd)}`;
}

/** Rounds and cost for the tooltip: what they are, or why they are not shown yet. */
export function statsTooltip(state: StatsState): string {
  switch (state.kind) {
    case 'ready': {
      const { rounds, costUsd, agent, priceDate } = state.stats;
      const lines = [`Rounds: ${formatNumber(rounds)}`, `Cost: ${formatUsd(costUsd)} at list prices of ${priceDate}`];
      if (agent) lines.push(`The agent's own figure: ${formatUsd(agent.usd)}`);
      lines.push(...costNotes(costOf(state.stats), PRICES_SETTING_HINT));
      if (state.stale) lines.push('(as of an earlier size of the file; read again when it goes quiet)');
      return lines.join('\n');
    }
    case 'pending':
      return 'Rounds and cost: being counted…';
    case 'failed':
      return `Rounds and cost: not available (${state.reason})`;
    case 'none':
      return 'Rounds and cost: counted when the project is expanded';
  }
}

/** From this context up, an expired cache is worth a mark: resuming it re-writes enough to matter. */
export const EXPIRED_MARK_TOKENS = 50_000;

/**
 * The tooltip line of a session's prompt cache and what resuming it costs, and a quiet mark when the cache has expired
 * and the context is large. Warm: what the next turn costs now, when the cache expires and what resuming costs after
 * that; expired: what resuming re-writes. Both with (≈, the user's target standing for a plan) what it would cost
 * compacted first. Null without figures (state unknown, model unpriced), and while the figures are of an earlier
 * size of the file. It only informs: nothing is compacted by itself.
 */
export function cacheExpiryNote(stats: StatsState, now: number): { mark: string | null; tooltip: string } | null {
  if (stats.kind !== 'ready' || stats.stale) return null;
  const { cache, contextTokens, expiredResume } = stats.stats;
  if (cache.status === 'unknown' || cache.expiresAt === null) return null;
  if (contextTokens === null || !expiredResume) return null;
  const compacted =
    expiredResume.afterTokens < contextTokens
      ? `; compacted first ≈ ${dollars(expiredResume.compactedUsd)} (to ~${shortNumber(expiredResume.afterTokens)})`
      : '';
  const rewrite = `resuming re-writes ${shortNumber(contextTokens)} tokens, ≈ ${dollars(expiredResume.asIsUsd)}`;
  if (now < cache.expiresAt && expiredResume.warmUsd !== null) {
    const until = new Date(cache.expiresAt).toISOString().slice(11, 16);
    return {
      mark: null,
      tooltip: `cache warm until ${until} UTC (${span(cache.expiresAt - now)} more): the next turn ≈ ${dollars(expiredResume.warmUsd)} now; after that ${rewrite}${compacted}`,
    };
  }
  if (now < cache.expiresAt) return null;
  return {
    mark: contextTokens >= EXPIRED_MARK_TOKENS ? 'cache expired' : null,
    tooltip: `cache expired ${span(now - cache.expiresAt)} ago: ${rewrite}${compacted}`,
  };
}

/**
 * The context the row shows, by core's one route (sessionStats.ts `sessionContext`, which the live status item takes
 * too): the background read's (the whole file, as the Rounds tree reads it) once it holds for the file as it is now,
 * else the quick read's from the file's end, calibrated by an earlier background read.
 */
export function shownContext(
  s: SessionSummary,
  stats: StatsState,
): Pick<SessionSummary, 'contextTokens' | 'contextWindow' | 'model'> {
  const c = sessionContext(s, stats.kind === 'ready' ? stats.stats : null, stats.kind === 'ready' && stats.stale);
  // The window the session states, as the Context Map states it: 0 (no fill) when its agent does not say it.
  return { contextTokens: c.tokens, model: c.model, contextWindow: c.limits.window ?? 0 };
}

/**
 * The tooltip's line for a fork: which session it came from and, where the file says, by whom. `agent`: the name of
 * the agent whose session it is. A file whose first lines are another session's copies was written by a compaction or
 * repair, or by the agent itself continuing that session (older Claude Code copied the history into a new file): the
 * lines do not say which, so neither is claimed.
 */
export function forkText(forkOf: ForkOrigin, original: SessionSummary | undefined, agent = 'the agent'): string {
  const named = original
    ? `"${oneLine(original.title, 60)}" (${forkOf.sessionId})`
    : `session ${forkOf.sessionId} (not found beside it)`;
  return forkOf.by === 'agent'
    ? `Fork of ${named}, written by ${agent}. Open Original Session shows it.`
    : `Continues ${named}: its first lines are copies of that session's (a compaction or repair writes such a file, and so does ${agent} continuing a session). Open Original Session shows it.`;
}

/** `original`: the session a fork was forked from, when it is listed. */
export function sessionNode(
  summary: SessionSummary & { agent?: AgentId; location?: string },
  now = Date.now(),
  stats: StatsState = { kind: 'none' },
  original?: SessionSummary,
): SessionNode {
  const s = { ...summary, ...shownContext(summary, stats) };
  const fill = fillText(s);
  const expiry = cacheExpiryNote(stats, now);
  const rounds = stats.kind === 'ready' ? plural(stats.stats.rounds, 'round') : null;
  return {
    id: `session:${s.file}`,
    kind: 'session',
    label: sessionRowLabel(s, stats),
    description: [s.live ? 'writing now' : timeAgo(s.mtimeMs, now), formatBytes(s.size), rounds, expiry?.mark]
      .filter(Boolean)
      .join(' · '),
    tooltip: [
      s.title,
      s.location ? `${s.location} · ${s.file}` : s.file,
      s.forkOf ? forkText(s.forkOf, original, s.agent ? agentName(s.agent) : undefined) : '',
      `Last activity: ${new Date(s.mtimeMs).toLocaleString()}${s.live ? ' (being written now)' : ''}`,
      `Size: ${formatBytes(s.size)}`,
      statsTooltip(stats),
      s.model ? `Model: ${s.model}` : '',
      fill ? `Context: ${fill}` : stats.kind === 'pending' ? 'Context: being read…' : 'No usage recorded yet',
      expiry?.tooltip,
    ]
      .filter(Boolean)
      .join('\n'),
    icon: s.live ? 'circle-filled' : s.forkOf ? 'repo-forked' : 'comment-discussion',
    color: s.live ? 'charts.green' : undefined,
    contextValue: `${s.live ? 'session.live' : 'session'}${s.agent ? actionTags(s.agent) : ''}${s.forkOf ? '.fork' : ''}`,
    collapsible: 'none',
    file: s.file,
    forkOf: s.forkOf ? (original?.file ?? null) : undefined,
    project: s.cwd ?? s.folder,
  };
}

/** The session a fork was forked from: the one of that id in the same project folder (where Claude Code finds it). */
export function originalOf(s: SessionSummary, all: readonly SessionSummary[]): SessionSummary | undefined {
  return s.forkOf ? all.find((o) => o.id === s.forkOf!.sessionId && o.folder === s.folder) : undefined;
}

/**
 * What a session row of an agent offers, for the menus (package.json `viewItem`): `.compact` where the agent's
 * capabilities compact it, `.resume-<program>` for the program that resumes it.
 */
export function actionTags(agent: AgentId): string {
  const module = agentModule(agent);
  const compact = capabilitiesOf({ id: agent, container: 'jsonl' }).compact ? '.compact' : '';
  return `${compact}${module.resume ? `.resume-${module.resume.program}` : ''}`;
}

/**
 * The project nodes of `groups`. `parent`: the agent node's id they are under, which prefixes their ids and their
 * sessions' (VS Code keeps an item's parent by its id: an id must not move between the flat and the nested tree).
 */
function projectNodes<T extends SessionSummary>(
  groups: readonly ProjectGroup<T>[],
  workspaceProject: string | null,
  now: number,
  statsOf: (s: T) => StatsState,
  all: readonly SessionSummary[],
  expandFirst: boolean,
  parent = '',
): SessionNode[] {
  const under = (id: string) => (parent ? `${parent}/${id}` : id);
  return groups.map((g, i) => ({
    id: under(`project:${g.project}`),
    kind: 'project',
    label: basename(g.project) || g.project,
    description: `${g.project} · ${g.sessions.length} session${g.sessions.length === 1 ? '' : 's'}`,
    tooltip: g.project,
    icon: g.project === workspaceProject ? 'root-folder-opened' : 'folder',
    contextValue: 'project',
    collapsible: expandFirst && i === 0 ? 'expanded' : 'collapsed',
    project: g.project,
    children: g.sessions.map((s) => {
      const node = sessionNode(s, now, statsOf(s), originalOf(s, all));
      return { ...node, id: under(node.id) };
    }),
  }));
}

/**
 * The tree: the groups' projects, each holding its sessions; when the sessions are of more than one agent, one node
 * per agent (in the registry's order) holding its projects.
 */
export function sessionTreeNodes<T extends SessionSummary & { agent?: AgentId; location?: string }>(
  groups: ProjectGroup<T>[],
  workspaceProject: string | null,
  now = Date.now(),
  statsOf: (s: T) => StatsState = () => ({ kind: 'none' }),
  all: readonly SessionSummary[] = groups.flatMap((g) => g.sessions),
): SessionNode[] {
  // One node per agent, in the registry's order (an agent's place does not move as sessions are written).
  const byAgent = new Map<AgentId | undefined, ProjectGroup<T>[]>();
  for (const g of groups) {
    const id = g.sessions[0]?.agent;
    byAgent.set(id, [...(byAgent.get(id) ?? []), g]);
  }
  if (byAgent.size <= 1) return projectNodes(groups, workspaceProject, now, statsOf, all, true);
  const order = (id: AgentId | undefined) => (id === undefined ? AGENT_IDS.length : AGENT_IDS.indexOf(id));
  const agents = [...byAgent.keys()].sort((a, b) => order(a) - order(b));
  return agents.map((id, i) => {
    const own = byAgent.get(id)!;
    const count = own.reduce((n, g) => n + g.sessions.length, 0);
    const name = id ? agentName(id) : 'Sessions';
    return {
      id: `agent:${id ?? ''}`,
      kind: 'agent',
      label: name,
      description: `${count} session${count === 1 ? '' : 's'} · ${own.length} project${own.length === 1 ? '' : 's'}`,
      tooltip: `${name}: ${count} session${count === 1 ? '' : 's'}`,
      icon: 'hubot',
      contextValue: 'agent',
      collapsible: i === 0 ? 'expanded' : 'collapsed',
      project: '',
      children: projectNodes(own, workspaceProject, now, statsOf, all, i === 0, `agent:${id ?? ''}`),
    };
  });
}
