// One agent, one module: what the engine knows of an agent lives in its folder (src/core/formats/<agent>/) and is
// reached through this interface, so that generic code asks the agent's module instead of comparing agent ids. The
// modules are registered in registry.ts, one line each; docs/ADDING-AN-AGENT.md says how to add one.
//
// This is the reading layer: how the agent's files are recognised and read into the common entries, where its
// sessions live and what they record of themselves, how a session is resumed, its limits, cache and tokenizer, and
// what the product can do with its sessions. It imports nothing of the engine above the entries, so the engine's
// reading code (transcript.ts, limits.ts, cache.ts) can ask the registry without an import circle. The parts that need
// the engine, writing a compacted session back (formats/writer.ts), are registered beside it in formats/writers.ts.
import type { ChainLoader } from '../chain';
import type { ConversationRecord } from '../conversation';
import type { Entry } from '../entries';
import type { JsonObject } from '../json';
import type { SessionSummary } from '../sessionList';
import type { RecordInventory } from './inventory';

/** How a file stores its session: one JSON value per line, or one JSON document. */
export type Container = 'jsonl' | 'json';

/**
 * Reads the records of one JSONL format, one parsed JSON value at a time, in file order. Readers may keep state
 * between records (a Codex response spans several records); `snapshot`/`restore` let the index re-read an
 * unterminated last line without that state drifting.
 */
export interface RecordReader {
  /** Entries for one JSON value found on a line; throws when the value is not an object. */
  digest(value: unknown, line: number, part: number, start: number, end: number): Entry[];
  version(): string | null;
  snapshot(): unknown;
  restore(snapshot: unknown): void;
}

/** An agent whose sessions are JSON lines: how its first record is recognised and how its records are read. */
export interface RecordFormat {
  /** True when the first JSON object of a JSONL file is one of this agent's records. */
  detect(first: unknown): boolean;
  /**
   * True for the agent whose reader takes any JSON lines no other agent recognised (Claude Code: its line kinds are
   * open-ended). Exactly one registered agent has it.
   */
  fallback?: boolean;
  /** A reader for one file. */
  reader(): RecordReader;
  /**
   * Why a file read by this agent's reader holds no session (every line read, none of them the agent's conversation
   * records), or null when it holds one. `path` and `entries` are the index's.
   */
  notASession(path: string, entries: readonly Entry[]): string | null;
  /**
   * The message a record holds, in the engine's model (core/conversation.ts), for the summarizers, the fidelity
   * measure and the readable views; null when the record holds none (metadata, a token count). Absent: the agent's
   * records are not read as messages (its sessions are inspected, never summarized).
   */
  message?: (record: JsonObject, entry: Entry) => ConversationRecord | null;
  /**
   * Where a session names its working folder once for all its records (Codex's session_meta; Claude Code's lines
   * each carry their own `cwd`): the first entry that `holds` it, and the folder its record names. The summaries name
   * the session's files relative to it.
   */
  sessionFolder?: { holds(entry: Entry): boolean; read(record: JsonObject): string | null };
  /**
   * The session a file's own lines are written under, when the agent names a session by its file (Claude Code's
   * `<id>.jsonl`), else null. Lines under another session's id were copied from that session's file (a fork before a
   * compaction, a copy of the file): their responses were paid for there, not in this file (core/cost.ts `copiedFrom`).
   */
  ownSession?(path: string): string | null;
  /**
   * The record kinds and fields the agent writes, each classified as read or deliberately ignored (inventory.ts);
   * the compat tier fails naming any kind or field a pinned CLI writes that it does not classify.
   */
  inventory?: RecordInventory;
}

/** One message element of a JSON document: where it starts (line, byte) and ends. */
export interface DocumentElement {
  line: number;
  start: number;
  end: number;
}

/** An agent whose sessions are one JSON document (a chat object, a message array). */
export interface DocumentFormat {
  /** True when the parsed document is one of this agent's sessions. */
  detect(doc: unknown): boolean;
  /** The document's message values, in order (the elements of its message array). */
  messages(doc: unknown): unknown[];
  /**
   * The common entries of the document's messages; `elements[k]` is where message `k` sits in the file. `path` is
   * the document's (an agent may read a file beside it, as Cline's usage figures are).
   */
  read(path: string, messages: unknown[], elements: readonly DocumentElement[]): Promise<Entry[]>;
  /** The agent's version as the document records it, when it does. */
  version(messages: unknown[]): string | null;
}

/** Where an agent keeps its sessions: one folder, the depth of its files below it, and which files are sessions. */
export interface SessionsLocation {
  /** The name the location is shown with ('Claude Code', 'Roo Code'): the agent's, or the product's that keeps it. */
  label: string;
  /** The folders, from the environment, the home folder and (VS Code extensions' tasks) VS Code's global storage. */
  folders(where: SessionsWhere): string[];
  /** How deep below the folder its session files are (1: directly in the folder's subfolders). */
  depth: number;
  /** True when `name` in `dir` is a session file. */
  isSessionFile(name: string, dir: string): boolean;
  /** The folders directly below it are projects (Claude Code's, named after the project's path). */
  projectFolders?: boolean;
}

/** What session folders are found from. */
export interface SessionsWhere {
  env: NodeJS.ProcessEnv;
  home: string;
  /** VS Code's global storage folders (where VS Code extensions such as Cline keep their tasks), most likely first. */
  globalStorage: readonly string[];
}

/** What a session file records of itself, read from its head (and tail) only, never the whole file. */
export interface SessionFacts {
  /** A title: the session's own, or its first prompt; null when it records none. */
  title: string | null;
  /** The id the agent resumes it by; null when unknown. */
  sessionId: string | null;
  /** The folder the session was started in (its project); null when not recorded. */
  cwd: string | null;
  /**
   * Why the agent's program cannot resume the session (the file stores it in a way the pinned program does not
   * know); absent when nothing in the file says so. No resume command is offered then.
   */
  resumeRefusal?: string;
}

export interface AgentSessions {
  locations: readonly SessionsLocation[];
  /**
   * Where they are, in words, for `sessions --help` (its notes join the agents' in the registry's order): the agent's
   * name, then its folders as the user finds them ('Codex $CODEX_HOME/sessions or ~/.codex/sessions').
   */
  where: string;
  /**
   * How a session file is named in a list where no title is known: its file name when the name is the session's own
   * (Claude Code's `<id>.jsonl`, Codex's `rollout-<time>-<id>.jsonl`); absent: its folder and file name (the files of
   * other agents share one name, and their folder names the session).
   */
  nameOf?: (file: string) => string;
  /** What the file records of itself (title, id, folder); throws when it cannot be read. */
  describe(file: string): Promise<SessionFacts>;
  /**
   * Present exactly when a location has `projectFolders` (a unit test holds it): the list's summary of a session in
   * a project folder, read from the file's head and tail (its project's path, title, the newest request's context and
   * model, whether it is a fork), of one file or of every session directly inside the project folders of `root`
   * (`only`: those project folders alone), newest first.
   */
  projects?: ProjectSessions;
}

/** The list's summaries of sessions kept in project folders (see `AgentSessions.projects`). */
export interface ProjectSessions {
  summarize(file: string, folder: string, now?: number): Promise<SessionSummary>;
  scan(root: string, now?: number, only?: readonly string[]): Promise<SessionSummary[]>;
}

/**
 * The programs of the agents that resume sessions, as the user configured them: the CLI's `--claude-path` /
 * `--codex-path`, the settings `agentCompactor.claudePath` / `codexPath`. An agent with a resume command adds its key
 * here (and the setting to package.json).
 */
export interface AgentPrograms {
  claudePath?: string;
  codexPath?: string;
}

/** How a session is resumed: the program and its arguments (quoted and checked by core/resume.ts). */
export interface ResumeSpec {
  /** The agent's program as it is usually installed ('claude', 'codex'). */
  program: string;
  /** Which of the configured programs is this agent's (the option and the setting that name it). */
  programOption: keyof AgentPrograms;
  /** Why the session in the file called `name` cannot be resumed by id (it records no id the agent finds it by). */
  notAnId(name: string): string;
  /** Why the program must be started in the session's folder (said when that folder is missing on this machine). */
  folderNeeded: string;
  /** The arguments that resume session `id`. */
  args(id: string): string[];
  /**
   * The id a session file is resumed by and the folder to start the program in (null when the file records none), and
   * why the program cannot resume it whatever its id (`SessionFacts.resumeRefusal`).
   */
  locate(file: string): Promise<{ sessionId: string | null; cwd: string | null; refusal?: string }>;
}

/** A context window and an auto-compaction threshold, and where each comes from (core/limits.ts `ContextLimits`). */
export interface AgentLimits {
  window: number | null;
  windowFrom: string;
  autoCompactAt: number | null;
  autoCompactFrom: string;
}

/** The prompt cache's default lifetime (Anthropic's; a write's lifetime when its usage does not say). */
export const FIVE_MINUTES_MS = 5 * 60_000;

/** How one agent's records tell the prompt cache's lifetime (core/cache.ts). */
export interface CacheRules {
  /** Whether the agent's usage records say how long the cache lives (else every state is "unknown"). */
  recordsLifetime: boolean;
  /** The lifetime of a write whose usage does not split it by lifetime. */
  defaultTtlMs: number;
}

/** What a resumed session is given again by its agent that no kept round holds (beside the system prompt and tools). */
export interface ResumeOverhead {
  tokens: number;
  /** Said in the plan's notes when tokens > 0. */
  note: string;
}

/** The decisions a user can make about a session's compaction. */
export type SteeringKind = 'keep' | 'drop' | 'summarize' | 'keepResult' | 'previewResult';

/** What the product can do with a session of an agent (and a container: one agent may be written in one only). */
export interface AgentCapabilities {
  inspect: true;
  plan: boolean;
  compact: boolean;
  /** Tool results replaced by previews (budgets): else every kept tool output stays whole. */
  previews: boolean;
  /** The decisions a plan follows. */
  steering: readonly SteeringKind[];
  /** A fresh file (without the original's lines). */
  fresh: boolean;
  /** Resume health (`doctor`): what resuming loads, checked with the agent's own loader model. */
  doctor: boolean;
  /** Repair of what doctor finds. */
  repair: boolean;
  /** Undo of the last compaction, and Restore From Backup. */
  undo: boolean;
  restore: boolean;
  /** A command that resumes the session. */
  resume: boolean;
  /**
   * Fork From Before This Compaction: a new session of the lines written before one of the agent's own compactions
   * (core/repair/forkBefore.ts), checked with the agent's loader model as resume health is.
   */
  forkBefore: boolean;
  /** The agent's own CLI as the summarizer (`claude-cli`, `codex-cli`), when it has one. */
  summarizerCli: 'claude-cli' | 'codex-cli' | null;
}

export type Capability = Exclude<keyof AgentCapabilities, 'inspect' | 'steering' | 'summarizerCli'>;

/** One agent: its id, its one display name, and its parts. */
export interface AgentModule<Id extends string = string> {
  readonly id: Id;
  /** The agent's display name, the one every surface uses ('Claude Code', 'Codex CLI', …). */
  readonly name: string;
  /** JSON lines sessions (at most one of records and document is the agent's way, or both). */
  readonly records?: RecordFormat;
  readonly document?: DocumentFormat;
  /** What can be done with its sessions stored in `container`. */
  capabilities(container: Container): AgentCapabilities;
  /** Why `what` is not available for its sessions stored in `container` (called only when it is not). */
  unsupported(what: Capability, container: Container): string;
  readonly sessions?: AgentSessions;
  readonly resume?: ResumeSpec;
  /** The context window and auto-compaction threshold, from the newest model and the window the file records. */
  limits(model: string | null, recordedWindow: number | null): AgentLimits;
  /** How the prompt cache is told (null: the records do not say), and how to say it is not. */
  readonly cache: { rules: CacheRules | null; unknown: string };
  /** What the exact o200k count of a round's text is for this agent's models. */
  readonly tokenizer: { label: string; note: string };
  /**
   * What the agent gives a resumed session again that no kept round holds (none when absent). `kept`: the entries the
   * resumed history holds, when they are known (a file's active context, which its own figure counts); absent for a
   * plan, whose result's history is its summary and the rounds it keeps.
   */
  resumeOverhead?: (entries: readonly Entry[], calibration: number, kept?: ReadonlySet<number>) => ResumeOverhead;
  /**
   * What the user's agent sends now with every request, read from their own newest sessions (core/agentNow.ts reads
   * the files, the module says what they record): absent, a plan uses the file's own figures.
   */
  readonly agentNow?: AgentNowSpec;
  /**
   * The compactions the agent made itself in a session file's parsed lines (null for a line that did not parse), with
   * the span each summarized and the summary it kept, for the fidelity measure (compact/agentSummaries.ts).
   */
  ownSummaries?(lines: (JsonObject | null)[]): OwnSummary[];
  /**
   * How the agent rebuilds a session's chain from its parent links when it resumes it (Claude Code's loader model):
   * what resume health (doctor), repair and fork-before check a file against. Present exactly when one of those
   * capabilities is (test/unit/neutral-core.test.ts).
   */
  readonly loader?: ChainLoader;
}

/** How the agent's own summary is recorded: readable text, encrypted (only its retained messages readable), or not at all. */
export type OwnSummaryKind = 'text' | 'encrypted' | 'not-recorded';

/** A compaction the agent made itself: the span it summarized, and the text it kept of it that can be read. */
export interface OwnSummary {
  /** The id of the agent that made it. */
  agent: string;
  /** 1-based line number of the compact_boundary line (Codex: of the `compacted` record). */
  boundaryLine: number;
  /** The summarized records as the summarizers read them (each agent's module maps them; Codex's with the session's cwd). */
  span: ConversationRecord[];
  /** The readable text the agent kept: its summary, and for Codex the messages it retained (see formats/codex/ownSummaries.ts). */
  summary: string;
  summaryKind: OwnSummaryKind;
  /**
   * "Its size", which ours is held to: the summary's characters when it can be read (basis `readable`); for a summary
   * that cannot be read, the kept part's tokens as the next request counts them (measuredKeptTokens) in characters of
   * prose by our estimate, and never less than the readable part (basis `next-request`).
   */
  size: { chars: number; basis: 'readable' | 'next-request'; tokens?: number };
}

/** The head and tail lines of one session file (whole lines only), as core/agentNow.ts read them. */
export interface SessionEnds {
  file: string;
  head: string[];
  tail: string[];
}

/**
 * What the user's agent sends now, as its module read it from their sessions: each agent's own shape, tagged with its
 * id, read again only by the module that made it (`AgentNowSpec.resumeBasis`).
 */
export interface AgentNow {
  readonly agent: string;
}

/** The system prompt and tools a resume of a plan's result is sent with, where the figure comes from, and what it announces. */
export interface ResumeBasis {
  /** System prompt and tools, tokens (0 when unknown). */
  tokens: number;
  source: 'agent-now' | 'agent-now-assumed' | 'recorded' | 'estimated' | null;
  /** `source` in words. */
  from: string;
  /** The session-start context the user's agent announces today (core/agentNow.ts), or null: the file's own. */
  announced: Readonly<Record<string, number>> | null;
  /** `tokens` already holds the context the agent gives a resumed thread (Codex's, from the user's Codex, not this file). */
  includesResumeContext?: boolean;
}

/** How an agent's newest sessions tell what it sends now (core/agentNow.ts reads the files; the module reads them). */
export interface AgentNowSpec {
  /** The sessions folder whose newest sessions speak for `file`: the one `file` is in when it is one, else `usersFolder`. */
  folderOf(file: string, usersFolder: string): string;
  /** Whether `file`'s own ends are read too (`of`'s `own`). */
  readsOwnFile: boolean;
  /** What the ends of the newest sessions record (and `own`, the file's, when `readsOwnFile`), or null: nothing. */
  of(ends: readonly SessionEnds[], own: SessionEnds | null): AgentNow | null;
  /**
   * The resume's system prompt and tools as `now` (this module's) says the agent sends them with `model` (the one
   * the resume uses), or `own`, the file's own figure, when it does not say better.
   */
  resumeBasis(now: AgentNow, model: string | null, own: ResumeBasis): ResumeBasis;
}

/** Capabilities of an agent the product reads only. */
export function readOnly(): AgentCapabilities {
  return {
    inspect: true,
    plan: false,
    compact: false,
    previews: false,
    steering: [],
    fresh: false,
    doctor: false,
    repair: false,
    undo: false,
    restore: false,
    resume: false,
    forkBefore: false,
    summarizerCli: null,
  };
}

/** Why `what` is not available for the sessions of an agent the product reads only (`name`: its display name). */
export function readOnlyReason(name: string, what: Capability): string {
  switch (what) {
    case 'doctor':
      return `Resume health (doctor) is not available for ${name} sessions: it checks what Claude Code's loader rebuilds from a transcript's parent links when it resumes one.`;
    case 'repair':
      return `Repair is not available for ${name} sessions: it relinks the broken parent links of a Claude Code transcript.`;
    case 'undo':
    case 'restore':
      return `${name} sessions are never written by Agent Compactor, so there is no compaction to undo and no backup to restore.`;
    case 'resume':
      return `${name} sessions have no resume command Agent Compactor offers.`;
    case 'forkBefore':
      return `${name} sessions are read-only here: Agent Compactor writes no fork of them.`;
    default:
      return `${name} sessions are read-only for now: Agent Compactor inspects them but does not write them back.`;
  }
}

/** The o200k count as a close count of another vendor's text (`vendor`: whose tokenizer it is not). */
export function o200kApproximation(vendor: string): { label: string; note: string } {
  return {
    label: 'o200k count',
    note: `Counted with o200k_base, OpenAI's tokenizer: a close count of this text, not ${vendor}'s own (its tokenizer is not public; the API's usage is the real figure).`,
  };
}

/** "10k", "1M": a window size in a sentence. */
export function shortTokens(n: number): string {
  return n >= 1_000_000 && n % 1_000_000 === 0
    ? `${n / 1_000_000}M`
    : n >= 1000
      ? `${Math.round(n / 1000)}k`
      : String(n);
}
