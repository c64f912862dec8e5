// Session writer: turns steps into Claude Code 2.1.x transcript lines (ids, usage, tool results,
// metadata lines, compaction, subagents). One cohesive class, hence longer than the other modules.
import { grepProject, numbered } from './command-outputs';
import { diffCounts, hunks } from './diff';
import type { GenerateOptions, GeneratedSubagent } from './types';
import { Project } from './project';
import { Ids, Rng } from './random';
import { codeTokens, proseTokens } from './tokens';

export type Obj = Record<string, unknown>;
type TextBlock = { type: 'text'; text: string };

interface ToolOutcome {
  content: string | TextBlock[];
  isError?: boolean;
  /** Bash-like results carry is_error: false when they succeed. */
  bashLike?: boolean;
  result: unknown;
  durationMs: number;
  bashProgress?: boolean;
  hook?: boolean;
}

export interface ToolCall {
  name: string;
  input: Obj;
  run: () => ToolOutcome;
  stat: 'read' | 'search' | 'bash' | 'edit' | 'other';
}

interface Step {
  thinking?: string;
  text?: string;
  tools: ToolCall[];
}

export type StepF = (g: Gen) => Step;

interface Conv {
  sub: boolean;
  agentId?: string;
  lines: string[];
  leaf: string | null;
  /** Tokens of the conversation messages (window since the last compaction). */
  tokens: number;
  /** System prompt and tool definitions. */
  base: number;
  /** Part of base that stays cached across sessions (read from cache on a cold start). */
  systemCached: number;
  cached: number;
  lastRequestAt: number;
  afterPrompt: boolean;
  model: string;
  ttl: '1h' | '5m';
  promptId: string;
  lastUsage: Obj | null;
  lastContext: number;
  lastOutput: number;
  toolUses: number;
  stats: Record<'read' | 'search' | 'bash' | 'edit' | 'other', number>;
  linesAdded: number;
  linesRemoved: number;
}

interface Tracked {
  backupFileName: string | null;
  version: number;
  backupTime: string;
  content: string;
}

export class Gen {
  readonly rng: Rng;
  readonly ids: Ids;
  readonly project: Project;
  readonly sessionId: string;
  readonly cwd: string;
  readonly version: string;
  readonly model: string;
  readonly subModel = 'claude-haiku-4-5-20251001';
  readonly usageStyle: 'placeholder' | 'final-everywhere';
  readonly thinkingText: boolean;
  readonly slug: string;
  gitBranch = 'fix/cursor-pagination';
  slugOn = false;
  permissionMode = 'default';
  now: number;
  readonly main: Conv;
  readonly subagents: GeneratedSubagent[] = [];
  round = 0;
  readonly totalRounds: number;
  compactAt: number | null;
  compaction: { atRound: number; preTokens: number; postTokens: number } | null = null;
  peak = 0;
  final = 0;
  post0 = 0;
  promptUuid = '';
  lastPrompt = '';
  turnStart = 0;
  messageCount = 0;
  readonly tracked = new Map<string, Tracked>();
  private readonly backupNames = new Map<string, string>();
  snapshotTime = '';
  readonly notes: string[] = [];
  currentFiles = new Set<string>();
  readonly contexts: number[] = [];
  readonly userMessages: string[] = [];
  queued: string | null = null;
  queuedPrompt: string | null = null;
  readonly commitLog: string[] = [
    '4e8d21a auth: per-plan rate limits',
    '3c71e0a normalize: lowercase urls before parsing (dedupe HTTP://Example.com)',
    '8f02b6d url: drop mc_eid and ref tracking params',
  ];

  constructor(readonly opts: GenerateOptions) {
    this.rng = new Rng(opts.seed);
    const idRng = new Rng((opts.seed ^ 0x5e551d) >>> 0);
    this.sessionId = opts.sessionId ?? idRng.uuid();
    this.ids = new Ids(this.rng);
    this.cwd = opts.cwd ?? '/home/maya/code/shelfmark';
    this.version = opts.version ?? '2.1.97';
    this.model = opts.model ?? 'claude-sonnet-4-6';
    this.usageStyle = opts.usageStyle ?? 'placeholder';
    this.thinkingText = opts.thinkingText ?? true;
    this.now = Date.parse(opts.startTime ?? '2026-05-12T08:47:13.512Z');
    this.project = new Project(this.rng, this.cwd);
    this.slug = [
      this.rng.pick(['quiet', 'amber', 'brisk', 'gentle', 'lucid', 'mellow', 'nimble', 'sturdy', 'velvet', 'wistful']),
      this.rng.pick(['drifting', 'humming', 'leaping', 'mapping', 'sketching', 'weaving', 'wandering', 'folding']),
      this.rng.pick(['heron', 'otter', 'lynx', 'finch', 'badger', 'marmot', 'gecko', 'puffin']),
    ].join('-');
    this.totalRounds = Math.max(1, Math.floor(opts.rounds));
    const c = opts.compactAtRound === undefined ? Math.round(this.totalRounds * 0.5) : opts.compactAtRound;
    this.compactAt = c !== null && c >= 2 && c < this.totalRounds ? c : null;
    this.main = this.newConv(
      false,
      undefined,
      this.model,
      '1h',
      this.rng.int(15_600, 17_400),
      this.rng.int(11_000, 11_600),
    );
  }

  newConv(
    sub: boolean,
    agentId: string | undefined,
    model: string,
    ttl: '1h' | '5m',
    base: number,
    systemCached: number,
  ): Conv {
    return {
      sub,
      agentId,
      lines: [],
      leaf: null,
      tokens: 0,
      base,
      systemCached,
      cached: 0,
      lastRequestAt: 0,
      afterPrompt: true,
      model,
      ttl,
      promptId: '',
      lastUsage: null,
      lastContext: 0,
      lastOutput: 0,
      toolUses: 0,
      stats: { read: 0, search: 0, bash: 0, edit: 0, other: 0 },
      linesAdded: 0,
      linesRemoved: 0,
    };
  }

  // --- time ------------------------------------------------------------------------------
  iso(): string {
    return new Date(this.now).toISOString();
  }
  tick(lo: number, hi: number): string {
    this.now += this.rng.int(lo, hi);
    return this.iso();
  }

  // --- targets -----------------------------------------------------------------------------
  /** Desired context size after k main rounds. */
  targetAt(k: number): number {
    const base = this.main.base;
    const C = this.compactAt;
    if (C !== null && k <= C) return base + ((this.peak - base) * k) / C;
    const from = C === null ? 0 : C;
    const start = C === null ? base : this.post0 || base + 3000;
    const span = Math.max(1, this.totalRounds - 1 - from);
    return start + ((this.final - start) * Math.min(span, k - from)) / span;
  }
  /** Characters a sizeable tool output should have to keep the context on its trajectory. */
  budgetChars(min: number, max: number): number {
    // Aim a few rounds ahead (within the current segment) so that the rounds without big
    // outputs that follow do not leave the context behind its trajectory.
    const end = this.compactAt !== null && this.round <= this.compactAt ? this.compactAt : this.totalRounds - 1;
    const deficit = this.targetAt(Math.min(end, this.round + 6)) - (this.main.base + this.main.tokens);
    const c = Math.round(deficit * 3.5 * (0.9 + this.rng.next() * 0.2));
    return Math.max(min, Math.min(max, c));
  }

  // --- line helpers ----------------------------------------------------------------------
  tail(conv: Conv): Obj {
    return {
      userType: 'external',
      entrypoint: 'cli',
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: this.version,
      gitBranch: this.gitBranch,
      slug: this.slugOn || conv.sub ? this.slug : undefined,
    };
  }
  push(conv: Conv, o: Obj): void {
    conv.lines.push(JSON.stringify(o));
  }
  chain(conv: Conv, head: Obj, body: Obj): string {
    const uuid = this.ids.uuid();
    const o: Obj = { parentUuid: conv.leaf, isSidechain: conv.sub };
    if (conv.sub && !('promptId' in head)) o.agentId = conv.agentId;
    for (const [k, v] of Object.entries(head)) {
      o[k] = v;
      if (k === 'promptId' && conv.sub) o.agentId = conv.agentId;
    }
    Object.assign(o, body);
    // uuid and timestamp go where each kind has them; callers pass placeholders
    for (const k of Object.keys(o)) {
      if (o[k] === UUID) o[k] = uuid;
      if (o[k] === TS) o[k] = this.iso();
    }
    Object.assign(o, this.tail(conv));
    this.push(conv, o);
    conv.leaf = uuid;
    return uuid;
  }

  permissionModeLine(mode: string): void {
    this.permissionMode = mode;
    this.push(this.main, { type: 'permission-mode', permissionMode: mode, sessionId: this.sessionId });
  }

  trackedSnapshot(): Obj {
    const o: Obj = {};
    for (const [rel, t] of this.tracked)
      o[rel] = { backupFileName: t.backupFileName, version: t.version, backupTime: t.backupTime };
    return o;
  }

  backupName(rel: string): string {
    let n = this.backupNames.get(rel);
    if (!n) {
      n = this.rng.hex(16);
      this.backupNames.set(rel, n);
    }
    return n;
  }

  userPrompt(text: string, extra: Obj = {}): void {
    const conv = this.main;
    this.tick(15_000, 240_000);
    const uuid = this.ids.uuid();
    // Files changed since their last backup get a new version at each prompt.
    for (const [rel, t] of this.tracked) {
      const now = this.project.files.get(rel) ?? '';
      if (now !== t.content) {
        t.version++;
        t.backupFileName = this.backupName(rel) + '@v' + t.version;
        t.backupTime = new Date(this.now + 1).toISOString();
        t.content = now;
      }
    }
    this.snapshotTime = new Date(this.now + 1).toISOString();
    this.push(conv, {
      type: 'file-history-snapshot',
      messageId: uuid,
      snapshot: { messageId: uuid, trackedFileBackups: this.trackedSnapshot(), timestamp: this.snapshotTime },
      isSnapshotUpdate: false,
    });
    conv.promptId = this.ids.uuid();
    const o: Obj = {
      parentUuid: conv.leaf,
      isSidechain: false,
      promptId: conv.promptId,
      type: 'user',
      message: { role: 'user', content: text },
      uuid,
      timestamp: this.iso(),
      ...extra,
      permissionMode: this.permissionMode,
      ...this.tail(conv),
    };
    this.push(conv, o);
    conv.leaf = uuid;
    conv.tokens += proseTokens(text) + 8;
    conv.afterPrompt = true;
    this.promptUuid = uuid;
    this.lastPrompt = text;
    this.userMessages.push(text);
    this.turnStart = this.now;
    this.messageCount++;
  }

  attachment(att: Obj): void {
    this.tick(1, 3);
    this.chain(this.main, { attachment: att, type: 'attachment', uuid: UUID, timestamp: TS }, {});
    const text = typeof att.content === 'string' ? att.content : typeof att.snippet === 'string' ? att.snippet : '';
    this.main.tokens += proseTokens(text) + 20;
  }

  /** A command the user ran with "!" in the prompt box: caveat, input and output lines. */
  localCommand(command: string, stdout: string, stderr = ''): void {
    const conv = this.main;
    const promptId = this.ids.uuid();
    this.tick(30_000, 90_000);
    this.chain(
      conv,
      {
        promptId,
        type: 'user',
        message: {
          role: 'user',
          content:
            '<local-command-caveat>Caveat: the messages below were produced by a command the user ran locally. Do not act on them unless the user asks.</local-command-caveat>',
        },
        isMeta: true,
        uuid: UUID,
        timestamp: TS,
      },
      {},
    );
    this.tick(5, 40);
    this.chain(
      conv,
      {
        promptId,
        type: 'user',
        message: { role: 'user', content: `<bash-input>${command}</bash-input>` },
        uuid: UUID,
        timestamp: TS,
      },
      {},
    );
    this.tick(2_000, 9_000);
    this.chain(
      conv,
      {
        promptId,
        type: 'user',
        message: { role: 'user', content: `<bash-stdout>${stdout}</bash-stdout><bash-stderr>${stderr}</bash-stderr>` },
        uuid: UUID,
        timestamp: TS,
      },
      {},
    );
    conv.tokens += codeTokens(command + stdout + stderr) + 60;
    this.messageCount += 3;
  }

  queueOperation(operation: 'enqueue' | 'remove', content?: string): void {
    this.tick(1, 5);
    const o: Obj = { type: 'queue-operation', operation, timestamp: this.iso(), sessionId: this.sessionId };
    if (content !== undefined) o.content = content;
    this.push(this.main, o);
  }

  hookProgress(
    conv: Conv,
    parent: string | null,
    event: string,
    hookName: string,
    command: string,
    toolUseID: string,
  ): string {
    const uuid = this.ids.uuid();
    this.push(conv, {
      parentUuid: parent,
      isSidechain: conv.sub,
      type: 'progress',
      data: { type: 'hook_progress', hookEvent: event, hookName, command },
      parentToolUseID: toolUseID,
      toolUseID,
      timestamp: this.iso(),
      uuid,
      ...this.tail(conv),
    });
    return uuid;
  }

  endTurn(): void {
    const conv = this.main;
    const hookId = this.ids.uuid();
    this.tick(20, 120);
    conv.leaf = this.hookProgress(conv, conv.leaf, 'Stop', 'Stop', STOP_HOOK, hookId);
    this.tick(300, 1400);
    this.chain(
      conv,
      {
        type: 'system',
        subtype: 'stop_hook_summary',
        hookCount: 1,
        hookInfos: [{ command: STOP_HOOK }],
        hookErrors: [],
        preventedContinuation: false,
        stopReason: '',
        hasOutput: false,
        level: 'suggestion',
        timestamp: TS,
        uuid: UUID,
        toolUseID: hookId,
      },
      {},
    );
    this.tick(2, 20);
    this.chain(
      conv,
      {
        type: 'system',
        subtype: 'turn_duration',
        durationMs: this.now - this.turnStart,
        messageCount: this.messageCount,
        timestamp: TS,
        uuid: UUID,
        isMeta: false,
      },
      {},
    );
  }

  compact(summary: string): void {
    const conv = this.main;
    const preTokens = conv.base + conv.tokens;
    const durationMs = this.rng.int(38_000, 95_000);
    this.now += durationMs;
    const logicalParent = conv.leaf;
    const postTokens = conv.base + proseTokens(summary) + 8;
    const boundary = this.ids.uuid();
    this.push(conv, {
      parentUuid: null,
      logicalParentUuid: logicalParent,
      isSidechain: false,
      type: 'system',
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      timestamp: this.iso(),
      uuid: boundary,
      level: 'info',
      compactMetadata: { trigger: 'auto', preTokens, postTokens, durationMs },
      ...this.tail(conv),
    });
    conv.leaf = boundary;
    this.tick(1, 3);
    this.chain(
      conv,
      {
        type: 'user',
        message: { role: 'user', content: summary },
        isVisibleInTranscriptOnly: true,
        isCompactSummary: true,
        uuid: UUID,
        timestamp: TS,
      },
      {},
    );
    this.tick(40, 400);
    conv.leaf = this.hookProgress(
      conv,
      conv.leaf,
      'SessionStart',
      'SessionStart:compact',
      SESSION_HOOK,
      this.ids.uuid(),
    );
    conv.tokens = proseTokens(summary) + 8;
    conv.cached = 0;
    conv.afterPrompt = true;
    this.post0 = postTokens;
    this.compaction = { atRound: this.round, preTokens, postTokens };
    this.messageCount = 1;
  }

  // --- rounds ------------------------------------------------------------------------------
  usage(conv: Conv, input: number, read: number, create: number, output: number): Obj {
    return {
      input_tokens: input,
      cache_creation_input_tokens: create,
      cache_read_input_tokens: read,
      output_tokens: output,
      server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
      service_tier: 'standard',
      cache_creation: {
        ephemeral_1h_input_tokens: conv.ttl === '1h' ? create : 0,
        ephemeral_5m_input_tokens: conv.ttl === '5m' ? create : 0,
      },
      inference_geo: '',
      iterations: [],
      speed: 'standard',
    };
  }

  runRound(conv: Conv, step: Step): void {
    const rng = this.rng;
    if (!conv.sub) this.round++;
    const final = step.tools.length === 0;
    // Request: context = system + tools + conversation so far.
    const ctx = conv.base + conv.tokens;
    const input = conv.afterPrompt ? rng.pick([3, 3, 3, 2, 4, 6]) : rng.pick([1, 1, 1, 1, 1, 2]);
    const expired = conv.lastRequestAt > 0 && this.now - conv.lastRequestAt > (conv.ttl === '1h' ? 3_600_000 : 300_000);
    let read = conv.cached === 0 || expired ? conv.systemCached : conv.cached;
    if (read > ctx - input) read = ctx - input;
    const create = ctx - input - read;
    conv.cached = read + create;
    conv.lastRequestAt = this.now;
    conv.afterPrompt = false;
    if (!conv.sub) this.contexts.push(ctx);

    const thinking = step.thinking ?? '';
    const text = step.text ?? '';
    let output = rng.int(6, 30) + proseTokens(thinking) + proseTokens(text);
    for (const t of step.tools) output += codeTokens(JSON.stringify(t.input));
    const placeholder = Math.min(output, rng.int(1, 12));
    const usageFinal = this.usage(conv, input, read, create, output);
    const usageEarly = this.usage(conv, input, read, create, placeholder);
    const stop = final ? 'end_turn' : 'tool_use';
    const msgId = this.ids.message();
    const requestId = this.ids.request();
    const blocks: Obj[] = [];
    if (thinking)
      blocks.push({
        type: 'thinking',
        thinking: this.thinkingText ? thinking : '',
        signature: this.ids.signature(thinking.length),
      });
    if (text) blocks.push({ type: 'text', text });
    const uses = step.tools.map((t) => ({ call: t, id: this.ids.toolUse(), uuid: '' }));
    for (const u of uses)
      blocks.push({ type: 'tool_use', id: u.id, name: u.call.name, input: u.call.input, caller: { type: 'direct' } });
    if (!blocks.length) throw new Error('generator: empty round');

    if (!conv.sub) this.slugOn = true;
    this.now += rng.int(900, 3200); // time to first token
    let parent = conv.leaf;
    const tokPerSec = rng.int(55, 95);
    const writeAssistant = (block: Obj, index: number): string => {
      const isLast = index === blocks.length - 1;
      let genTokens: number;
      if (block.type === 'thinking') genTokens = proseTokens(thinking);
      else if (block.type === 'text') genTokens = proseTokens(text);
      else genTokens = codeTokens(JSON.stringify(block.input));
      this.now += Math.max(60, Math.round((genTokens / tokPerSec) * 1000)) + rng.int(0, 120);
      const uuid = this.ids.uuid();
      const early = !isLast && this.usageStyle === 'placeholder';
      const o: Obj = { parentUuid: parent, isSidechain: conv.sub };
      if (conv.sub) o.agentId = conv.agentId;
      o.message = {
        model: conv.model,
        id: msgId,
        type: 'message',
        role: 'assistant',
        content: [block],
        stop_reason: early ? null : stop,
        stop_sequence: null,
        stop_details: null,
        usage: early ? usageEarly : usageFinal,
      };
      o.requestId = requestId;
      o.type = 'assistant';
      o.uuid = uuid;
      o.timestamp = this.iso();
      Object.assign(o, this.tail(conv));
      this.push(conv, o);
      parent = uuid;
      return uuid;
    };
    let lastResult: string | null = null;
    const writeResult = (u: { call: ToolCall; id: string; uuid: string }): void => {
      const started = this.now;
      const out = u.call.run();
      conv.toolUses++;
      conv.stats[u.call.stat]++;
      if (out.bashProgress && out.durationMs >= 3000) {
        let prev = u.uuid;
        const secs = Math.floor(out.durationMs / 1000);
        const stepS = Math.max(1, Math.ceil((secs - 2) / 6));
        const contentLines = typeof out.content === 'string' ? out.content.split('\n') : [];
        let k = 0;
        for (let s = 2; s < secs; s += stepS) {
          this.now = Math.max(this.now + 1, started + s * 1000 + rng.int(0, 60));
          const upTo = Math.floor((contentLines.length * s) / secs);
          const shown = contentLines.slice(Math.max(0, upTo - 5), upTo);
          const uuid = this.ids.uuid();
          this.push(conv, {
            parentUuid: prev,
            isSidechain: conv.sub,
            type: 'progress',
            data: {
              type: 'bash_progress',
              output: shown.slice(-1).join('\n'),
              fullOutput: shown.join('\n'),
              elapsedTimeSeconds: s,
              totalLines: upTo,
            },
            toolUseID: 'bash-progress-' + k++,
            parentToolUseID: u.id,
            uuid,
            timestamp: this.iso(),
            ...this.tail(conv),
          });
          prev = uuid;
        }
      }
      this.now = Math.max(this.now + rng.int(2, 40), started + out.durationMs);
      if (out.hook && !conv.sub) {
        this.hookProgress(conv, u.uuid, 'PostToolUse', 'PostToolUse:' + u.call.name, FORMAT_HOOK, u.id);
        this.now += rng.int(1, 4);
      }
      const block: Obj = out.isError
        ? { type: 'tool_result', content: out.content, is_error: true, tool_use_id: u.id }
        : {
            tool_use_id: u.id,
            type: 'tool_result',
            content: out.content,
            ...(out.bashLike ? { is_error: false } : {}),
          };
      const uuid = this.ids.uuid();
      const o: Obj = { parentUuid: u.uuid, isSidechain: conv.sub, promptId: conv.promptId };
      if (conv.sub) o.agentId = conv.agentId;
      Object.assign(o, {
        type: 'user',
        message: { role: 'user', content: [block] },
        uuid,
        timestamp: this.iso(),
        toolUseResult: out.result,
        sourceToolAssistantUUID: u.uuid,
        ...this.tail(conv),
      });
      this.push(conv, o);
      lastResult = uuid;
      conv.tokens +=
        (typeof out.content === 'string'
          ? codeTokens(out.content)
          : out.content.reduce((s, b) => s + proseTokens(b.text), 0)) + 10;
      if (!conv.sub) this.messageCount++;
    };
    const interleave = uses.length > 1 && rng.chance(0.5);
    let bi = 0;
    if (thinking) writeAssistant(blocks[bi], bi++);
    if (text) writeAssistant(blocks[bi], bi++);
    uses.forEach((u, i) => {
      u.uuid = writeAssistant(blocks[bi], bi++);
      if (!conv.sub && (u.call.name === 'Edit' || u.call.name === 'Write'))
        this.snapshotUpdate(u.uuid, this.project.rel(String(u.call.input.file_path)));
      if (interleave && i >= 1) writeResult(uses[i - 1]);
    });
    for (let i = interleave ? uses.length - 1 : 0; i < uses.length; i++) writeResult(uses[i]);
    conv.tokens += proseTokens(text) + blocks.length * 6;
    for (const u of uses) conv.tokens += codeTokens(JSON.stringify(u.call.input));
    conv.leaf = lastResult ?? parent;
    conv.lastUsage = usageFinal;
    conv.lastContext = ctx;
    conv.lastOutput = output;
    if (!conv.sub) this.messageCount += 1;
  }

  snapshotUpdate(toolLineUuid: string, rel: string): void {
    if (!this.tracked.has(rel)) {
      const existed = this.project.head.has(rel) || this.project.files.has(rel);
      this.tracked.set(rel, {
        backupFileName: existed ? this.backupName(rel) + '@v1' : null,
        version: 1,
        backupTime: new Date(this.now + 2).toISOString(),
        content: this.project.files.get(rel) ?? '',
      });
    }
    this.push(this.main, {
      type: 'file-history-snapshot',
      messageId: toolLineUuid,
      snapshot: {
        messageId: this.promptUuid,
        trackedFileBackups: this.trackedSnapshot(),
        timestamp: this.snapshotTime,
      },
      isSnapshotUpdate: true,
    });
  }

  // --- tools -------------------------------------------------------------------------------
  read(rel: string, o: { offset?: number; limit?: number; size?: [number, number] } = {}): ToolCall {
    const input: Obj = { file_path: this.project.abs(rel) };
    if (o.offset) input.offset = o.offset;
    if (o.limit) input.limit = o.limit;
    return {
      name: 'Read',
      input,
      stat: 'read',
      run: () => {
        const size = o.size ? this.budgetChars(o.size[0], o.size[1]) : 60_000;
        const content = this.project.read(rel, size);
        const n = numbered(content, o.offset ?? 1, o.limit ?? 2000);
        this.currentFiles.add(rel);
        return {
          content: n.text,
          result: {
            type: 'text',
            file: {
              filePath: this.project.abs(rel),
              content: n.slice,
              numLines: n.numLines,
              startLine: o.offset ?? 1,
              totalLines: n.totalLines,
            },
          },
          durationMs: this.rng.int(4, 60),
        };
      },
    };
  }

  edit(
    rel: string,
    oldString: string,
    newString: string,
    o: { expectError?: boolean; replaceAll?: boolean } = {},
  ): ToolCall {
    const abs = this.project.abs(rel);
    const input: Obj = { file_path: abs, old_string: oldString, new_string: newString };
    if (o.replaceAll) input.replace_all = true;
    return {
      name: 'Edit',
      input,
      stat: 'edit',
      run: () => {
        const before = this.project.read(rel);
        if (!before.includes(oldString)) {
          if (!o.expectError)
            throw new Error('generator: edit target not found in ' + rel + ': ' + oldString.slice(0, 80));
          return {
            content: `<tool_use_error>String to replace not found in file.\nString: ${oldString}</tool_use_error>`,
            isError: true,
            result: `Error: String to replace not found in file.\nString: ${oldString}`,
            durationMs: this.rng.int(3, 20),
          };
        }
        if (o.expectError) throw new Error('generator: edit meant to fail matched in ' + rel);
        const after = o.replaceAll
          ? before.split(oldString).join(newString)
          : before.replace(oldString, () => newString);
        if (!o.replaceAll && before.indexOf(oldString) !== before.lastIndexOf(oldString))
          throw new Error('generator: ambiguous edit in ' + rel);
        this.project.write(rel, after);
        this.currentFiles.add(rel);
        const c = diffCounts(before, after);
        this.main.linesAdded += c.added;
        this.main.linesRemoved += c.removed;
        return {
          content: `The file ${abs} has been updated${o.replaceAll ? '. All occurrences of the string were replaced' : ' successfully'}.`,
          result: {
            filePath: abs,
            oldString,
            newString,
            originalFile: before,
            structuredPatch: hunks(before, after),
            userModified: false,
            replaceAll: !!o.replaceAll,
          },
          durationMs: this.rng.int(15, 90),
          hook: true,
        };
      },
    };
  }

  write(rel: string, content: string): ToolCall {
    const abs = this.project.abs(rel);
    return {
      name: 'Write',
      input: { file_path: abs, content },
      stat: 'edit',
      run: () => {
        this.project.write(rel, content);
        this.currentFiles.add(rel);
        return {
          content: `File created successfully at: ${abs}`,
          result: { type: 'create', filePath: abs, content, structuredPatch: [], originalFile: null },
          durationMs: this.rng.int(10, 60),
          hook: true,
        };
      },
    };
  }

  bash(
    command: string,
    description: string,
    exec: () => { out: string; code?: number; ms?: number },
    extra: Obj = {},
  ): ToolCall {
    return {
      name: 'Bash',
      input: { command, description, ...extra },
      stat: 'bash',
      run: () => {
        const r = exec();
        const ms = r.ms ?? this.rng.int(40, 600);
        const out = r.out.replace(/\n+$/, '');
        if (r.code) {
          return {
            content: `Exit code ${r.code}\n${out}`,
            isError: true,
            result: `Error: Exit code ${r.code}\n${out}`,
            durationMs: ms,
            bashProgress: true,
          };
        }
        return {
          content: out,
          bashLike: true,
          result: { stdout: out, stderr: '', interrupted: false, isImage: false, noOutputExpected: false },
          durationMs: ms,
          bashProgress: true,
        };
      },
    };
  }

  grep(
    pattern: string,
    o: {
      under?: string;
      glob?: string;
      mode?: 'content' | 'files_with_matches';
      context?: number;
      headLimit?: number;
    } = {},
  ): ToolCall {
    const mode = o.mode ?? 'content';
    const input: Obj = { pattern };
    if (o.under) input.path = this.project.abs(o.under.replace(/\/$/, ''));
    if (o.glob) input.glob = o.glob;
    input.output_mode = mode;
    if (mode === 'content') input['-n'] = true;
    if (o.context) input['-C'] = o.context;
    if (o.headLimit) input.head_limit = o.headLimit;
    return {
      name: 'Grep',
      input,
      stat: 'search',
      run: () => {
        this.project.materializeAll();
        const globRe = o.glob
          ? new RegExp(
              o.glob
                .replace(/\./g, '\\.')
                .replace(/\*\*\//g, '(.*/)?')
                .replace(/\*/g, '[^/]*') + '$',
            )
          : undefined;
        const r = grepProject(this.project, pattern, {
          under: o.under,
          glob: globRe,
          mode,
          context: o.context,
          headLimit: o.headLimit,
        });
        const result =
          mode === 'content'
            ? { mode, numFiles: 0, filenames: [], content: r.text, numLines: r.lines }
            : { mode, filenames: r.files, numFiles: r.files.length };
        return { content: r.text, result, durationMs: this.rng.int(30, 400) };
      },
    };
  }

  glob(pattern: string): ToolCall {
    return {
      name: 'Glob',
      input: { pattern, path: this.cwd },
      stat: 'search',
      run: () => {
        const re = new RegExp(
          '^' +
            pattern
              .replace(/\./g, '\\.')
              .replace(/\*\*\//g, '(.*/)?')
              .replace(/\*/g, '[^/]*') +
            '$',
        );
        const files = this.project
          .all()
          .filter((p) => re.test(p))
          .map((p) => this.project.abs(p));
        const ms = this.rng.int(20, 300);
        return {
          content: files.length ? files.join('\n') : 'No files found',
          result: { filenames: files, durationMs: ms, numFiles: files.length, truncated: false },
          durationMs: ms,
        };
      },
    };
  }

  agent(description: string, prompt: string, subagentType: string, steps: StepF[]): ToolCall {
    return {
      name: 'Agent',
      input: { description, prompt, subagent_type: subagentType },
      stat: 'other',
      run: () => {
        const started = this.now;
        const agentId = this.ids.agent();
        const sub = this.newConv(true, agentId, this.subModel, '5m', this.rng.int(7_200, 9_400), 0);
        sub.promptId = this.main.promptId;
        this.tick(20, 90);
        this.chain(
          sub,
          {
            promptId: sub.promptId,
            type: 'user',
            message: { role: 'user', content: prompt },
            uuid: UUID,
            timestamp: TS,
          },
          {},
        );
        sub.tokens += proseTokens(prompt) + 8;
        let report = '';
        for (const f of steps) {
          const s = f(this);
          if (!s.tools.length) report = s.text ?? '';
          this.tick(400, 2500);
          this.runRound(sub, s);
        }
        this.subagents.push({
          agentId,
          relativePath: `${this.sessionId}/subagents/agent-${agentId}.jsonl`,
          text: sub.lines.join('\n') + '\n',
        });
        const duration = this.now - started + this.rng.int(100, 900);
        const totalTokens = sub.lastContext + sub.lastOutput;
        return {
          content: [
            { type: 'text', text: report },
            {
              type: 'text',
              text: `agentId: ${agentId} (use SendMessage with to: '${agentId}' to continue this agent)\n<usage>total_tokens: ${totalTokens}\ntool_uses: ${sub.toolUses}\nduration_ms: ${duration}</usage>`,
            },
          ],
          result: {
            status: 'completed',
            prompt,
            agentId,
            agentType: subagentType,
            content: [{ type: 'text', text: report }],
            totalDurationMs: duration,
            totalTokens,
            totalToolUseCount: sub.toolUses,
            usage: sub.lastUsage,
            toolStats: {
              readCount: sub.stats.read,
              searchCount: sub.stats.search,
              bashCount: sub.stats.bash,
              editFileCount: sub.stats.edit,
              linesAdded: 0,
              linesRemoved: 0,
              otherToolCount: sub.stats.other,
            },
          },
          durationMs: duration,
        };
      },
    };
  }
}

const UUID = '\u0000uuid';
const TS = '\u0000ts';
const STOP_HOOK = 'node .claude/hooks/notify-done.mjs';
const FORMAT_HOOK = 'node .claude/hooks/format-changed.mjs';
export const SESSION_HOOK = 'node .claude/hooks/session-context.mjs';
