// The transcript being shown: which file, its analysis, its compaction plan. Loads in the
// background (chunked parsing with yields, progress in the view and the status bar), keeps
// up with a live session through a file watcher and `reinspect` (only appended bytes are
// parsed), and serialises every operation so views never see a half-updated state.
import { capabilitiesOf } from '../core/formats/registry';
import { documentAgentOfHead } from '../core/formats/documents';
import { ContextKey } from './contextKeys';
import { setContext } from './setContext';
import { resumeAgentOf } from '../core/resume';
import * as vscode from 'vscode';
import { basename, dirname } from 'node:path';
import { inspectFile, reinspect } from '../core/inspect';
import type { Analysis } from '../core/analysis';
import { NotATranscriptError, prefixUnchanged } from '../core/transcript';
import { planCompaction } from '../core/compact/plan';
import { smallestReachableTarget } from '../core/compact/reach';
import { readAgentNow, type AgentNow } from '../core/agentNow';
import { anchored, type UserDecisions } from '../core/compact/decisions';
import { loadSavedPlanInputs, saveDecisions, type SavedPlanInputs } from '../core/compact/savedDecisions';
import type { CompactionPlan, CompactResult } from '../core/compact/types';
import type { CompactSettings } from '../core/compactSettings';
import type { Log } from './log';
import { getSettings } from './settings';
import { formatBytes } from './model/format';
import { compactedSince, replannedNote } from './model/agentCompacted';

export type StoreState =
  | { status: 'empty' }
  | { status: 'loading'; file: string; message: string }
  | {
      status: 'ready';
      file: string;
      analysis: Analysis;
      plan: CompactionPlan | null;
      planError?: string;
      updatedAt: number;
    }
  | {
      status: 'error';
      file: string;
      message: string;
      /** True for a file with no lines yet: shown calmly, not as a failure. */ empty?: boolean;
    };

export const VIEW_IDS = ['agentCompactor.rounds', 'agentCompactor.roundsExplorer'] as const;

/** Lines between yields while parsing, so the extension host stays responsive. */
const YIELD_EVERY = 500;
const CACHE_SIZE = 4;
const WATCH_DEBOUNCE_MS = 250;

export function isTranscriptUri(uri: vscode.Uri | undefined): uri is vscode.Uri {
  if (!uri || uri.scheme !== 'file') return false;
  // JSON lines are followed; of JSON documents only where agents keep sessions (a Cline / Roo task's history, a Gemini
  // CLI chat), so that other JSON files are never read. The format itself is decided by content when it is read.
  return (
    /\.jsonl$/i.test(uri.fsPath) || /[\\/](api_conversation_history\.json|chats[\\/][^\\/]+\.json)$/i.test(uri.fsPath)
  );
}

export function isTranscriptEditor(editor: vscode.TextEditor | undefined): editor is vscode.TextEditor {
  return !!editor && (isTranscriptUri(editor.document.uri) || isSessionDocument(editor.document));
}

/** Characters of an open `.json` document read to tell whether it is a session (what the editor holds already). */
const SESSION_HEAD_CHARS = 64 << 10;

/** What `isSessionDocument` decided of an open document, and at which version. */
const sessionDocuments = new WeakMap<vscode.TextDocument, { version: number; session: boolean }>();

/**
 * An open `.json` file outside the agents' folders that is a session by its content (a Claude Code transcript a user
 * saved as one JSON array): judged from the head of the text the editor holds, so no other file is read.
 */
function isSessionDocument(doc: vscode.TextDocument): boolean {
  if (doc.uri.scheme !== 'file' || !/\.json$/i.test(doc.uri.fsPath)) return false;
  // Asked on every tab change and cursor move: decided once per version of the document.
  const known = sessionDocuments.get(doc);
  if (known?.version === doc.version) return known.session;
  const head = doc.getText(new vscode.Range(new vscode.Position(0, 0), doc.positionAt(SESSION_HEAD_CHARS)));
  const session = documentAgentOfHead(head) !== null;
  sessionDocuments.set(doc, { version: doc.version, session });
  return session;
}

export class TranscriptStore implements vscode.Disposable {
  private _state: StoreState = { status: 'empty' };
  private readonly emitter = new vscode.EventEmitter<StoreState>();
  readonly onDidChange = this.emitter.event;
  private queue: Promise<unknown> = Promise.resolve();
  private pending = 0;
  /** The file the user wants shown (the newest request wins over queued older ones). */
  private wanted: string | undefined;
  private readonly cache = new Map<string, Analysis>();
  private watcher: vscode.FileSystemWatcher | undefined;
  private watchedFile: string | undefined;
  private watchTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * Files the user previewed, with the target typed for each (undefined: the settings'). A preview
   * belongs to its file: another file shows a plan only with previewOnOpen, and its Compact never
   * uses a target typed for a different file.
   */
  private readonly previews = new Map<string, number | undefined>();
  /** Files whose preview was cleared while previewOnOpen is on: no plan until opened again. */
  private readonly dismissed = new Set<string>();
  /**
   * What is saved with each session that its plan follows (the frozen budget decisions and the user's decisions),
   * read from its state file once and then held as a value: a decision updates it here and is persisted from here.
   */
  private readonly saved = new Map<string, SavedPlanInputs>();
  private readonly agentNow = new Map<string, AgentNow | null>();
  private readonly floors = new WeakMap<Analysis, { key: string; floor: Promise<number> }>();
  /** Files the agent compacted while their preview was open: the note their plan carries until previewed anew. */
  private readonly replanned = new Map<string, string>();
  lastResult: CompactResult | undefined;

  constructor(private readonly log: Log) {}

  get state(): StoreState {
    return this._state;
  }

  get file(): string | undefined {
    return this._state.status === 'empty' ? undefined : this._state.file;
  }

  get analysis(): Analysis | undefined {
    return this._state.status === 'ready' ? this._state.analysis : undefined;
  }

  get plan(): CompactionPlan | null {
    return this._state.status === 'ready' ? this._state.plan : null;
  }

  /** Whether `file` (default: the shown one) gets a plan: previewed, or previewOnOpen. */
  isPreviewing(file = this.file): boolean {
    if (!file) return false;
    return this.previews.has(file) || (!this.dismissed.has(file) && getSettings(vscode.Uri.file(file)).previewOnOpen);
  }

  private set(state: StoreState): void {
    this._state = state;
    void setContext(ContextKey.hasTranscript, state.status === 'ready');
    void setContext(ContextKey.loading, state.status === 'loading');
    void setContext(ContextKey.hasPlan, state.status === 'ready' && state.plan !== null);
    // Commands an agent does not support are disabled for its sessions (package.json `enablement`), with the reason in
    // the header (compaction) or said when asked (resume).
    const format = state.status === 'ready' ? state.analysis.index.format : null;
    void setContext(ContextKey.canCompact, format !== null && capabilitiesOf(format).compact);
    void setContext(ContextKey.canResume, format !== null && resumeAgentOf(format.id) !== null);
    this.emitter.fire(state);
  }

  /** Runs operations one at a time (`op` may be synchronous: it still waits its turn, and a throw rejects). */
  private run<T>(op: () => T | PromiseLike<T>): Promise<T> {
    this.pending++;
    const p = this.queue.then(op, op);
    this.queue = p.then(
      () => undefined,
      () => undefined,
    );
    return p.finally(() => this.pending--);
  }

  /** Resolves when every queued operation has finished. */
  async whenIdle(): Promise<void> {
    while (this.pending > 0) await this.queue;
  }

  /** The compaction settings for `file` (default: the shown one): its configuration plus the target of its own preview. */
  compactSettings(file = this.file): Partial<CompactSettings> {
    const s = getSettings(file ? vscode.Uri.file(file) : undefined).compact;
    const target = file ? this.previews.get(file) : undefined;
    return target ? { ...s, targetTokens: target } : s;
  }

  /** The target typed for the shown file's preview, if any. */
  get target(): number | undefined {
    return this.file ? this.previews.get(this.file) : undefined;
  }

  /** Shows `file`: from the cache (refreshed with reinspect) or parsed in the background. */
  load(file: string, options: { force?: boolean } = {}): Promise<Analysis | undefined> {
    this.wanted = file;
    return this.run(async () => {
      if (this.wanted !== file) return undefined; // superseded while queued
      if (!options.force && this._state.status === 'ready' && this._state.file === file) return this._state.analysis;
      if (options.force) {
        this.saved.delete(file);
        this.replanned.delete(file);
      }
      if (this._state.status === 'empty' || this._state.file !== file) this.dismissed.delete(file); // opened again
      const cached = options.force ? undefined : this.cache.get(file);
      let analysis: Analysis;
      try {
        if (cached) {
          analysis = await this.extend(cached);
        } else {
          this.set({ status: 'loading', file, message: `Reading ${basename(file)}…` });
          analysis = await this.parse(file);
        }
      } catch (err) {
        this.cache.delete(file);
        const message = err instanceof Error ? err.message : String(err);
        this.log.warn(`Could not read ${file}: ${message}`);
        if (this.wanted === file) {
          this.set({
            status: 'error',
            file,
            message,
            empty: err instanceof NotATranscriptError && err.reason === 'empty',
          });
          this.watch(file);
        }
        return undefined;
      }
      this.remember(file, analysis);
      if (this.wanted !== file) return analysis;
      await this.publish(file, analysis);
      this.watch(file);
      return analysis;
    });
  }

  /** Re-reads the current file: only appended bytes unless `full`. */
  refresh(full = false): Promise<Analysis | undefined> {
    const file = this.file;
    if (!file) return Promise.resolve(undefined);
    if (full) return this.load(file, { force: true });
    return this.run(async () => {
      if (this.file !== file) return undefined;
      const previous = this._state.status === 'ready' ? this._state.analysis : this.cache.get(file);
      try {
        // Counted before the re-read: it extends the previous index in place.
        const linesRead = previous?.index.lineCount;
        const analysis = previous ? await this.extend(previous) : await this.parse(file);
        this.noticeAgentCompaction(file, linesRead, analysis);
        this.remember(file, analysis);
        if (this.file === file) await this.publish(file, analysis);
        return analysis;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.log.warn(`Could not refresh ${file}: ${message}`);
        this.cache.delete(file);
        if (this.file === file)
          this.set({
            status: 'error',
            file,
            message,
            empty: err instanceof NotATranscriptError && err.reason === 'empty',
          });
        return undefined;
      }
    });
  }

  /** Computes the plan for the current file (and keeps recomputing it on refresh). */
  /** A target replaces the one of an earlier preview of the same file; without one, that one is kept. */
  preview(targetTokens?: number): Promise<CompactionPlan | null> {
    return this.run(async () => {
      const s = this._state;
      if (s.status !== 'ready') return null;
      this.previews.set(s.file, targetTokens ?? this.previews.get(s.file));
      this.dismissed.delete(s.file);
      this.replanned.delete(s.file);
      await this.publish(s.file, s.analysis);
      return this.plan;
    });
  }

  /** Plans the shown file again (settings changed): a plan only if it is previewed or previewOnOpen is on. */
  replan(): Promise<void> {
    return this.run(async () => {
      const s = this._state;
      if (s.status === 'ready') await this.publish(s.file, s.analysis);
    });
  }

  /** Forgets the shown file's preview and target. */
  clearPreview(): Promise<void> {
    return this.run((): void => {
      const s = this._state;
      if (s.status === 'empty') return;
      this.previews.delete(s.file);
      this.dismissed.add(s.file);
      this.replanned.delete(s.file);
      if (s.status === 'ready') this.set({ ...s, plan: null, planError: undefined });
    });
  }

  /** Forgets the shown transcript (e.g. its file was deleted). */
  clear(): void {
    this.wanted = undefined;
    this.unwatch();
    this.set({ status: 'empty' });
  }

  private async parse(file: string): Promise<Analysis> {
    const started = Date.now();
    const size = (await vscode.workspace.fs.stat(vscode.Uri.file(file))).size;
    const name = basename(file);
    const analysis = await vscode.window.withProgress({ location: { viewId: VIEW_IDS[0] } }, () =>
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `Agent Compactor: reading ${name}` },
        (progress) => {
          let last = 0;
          return inspectFile(file, {
            yieldEvery: YIELD_EVERY,
            onProgress: (read, total) => {
              const pct = total > 0 ? Math.floor((read / total) * 100) : 0;
              progress.report({ message: `${pct}%`, increment: pct - last });
              last = pct;
              if (this.wanted === file && this._state.status === 'loading') {
                this._state = { status: 'loading', file, message: `Reading ${name}… ${pct}% of ${formatBytes(total)}` };
                this.emitter.fire(this._state);
              }
            },
          });
        },
      ),
    );
    this.log.info(
      `Read ${file} (${formatBytes(size)}): ${analysis.report.totals.rounds} rounds in ${Date.now() - started} ms`,
    );
    return analysis;
  }

  /** Incremental re-read; keeps subagent files found at load time. */
  private async extend(previous: Analysis): Promise<Analysis> {
    if (!(await prefixUnchanged(previous.index).catch(() => true))) {
      this.log.info(`${previous.index.path} was rewritten (not appended to); reading it again`);
      return this.parse(previous.index.path);
    }
    const started = Date.now();
    const bytes = previous.index.consumedBytes;
    const fileSidechains = previous.report.sidechains.filter((s) => s.source === 'file');
    const next = await reinspect(previous, { yieldEvery: YIELD_EVERY });
    if (!next.rebuilt)
      for (const s of fileSidechains)
        if (!next.report.sidechains.some((x) => x.id === s.id)) next.report.sidechains.push(s);
    const read = next.index.consumedBytes - (next.rebuilt ? 0 : bytes);
    if (read > 0 || next.rebuilt) {
      this.log.debug(
        `Re-read ${previous.index.path}: ${next.rebuilt ? 'rebuilt' : `${formatBytes(read)} appended`} in ${Date.now() - started} ms`,
      );
    }
    return next;
  }

  /** Drops a cached analysis and saved state (after the file was rewritten: restore, in-place compaction, undo). */
  invalidate(file: string): void {
    this.cache.delete(file);
    this.saved.delete(file);
    this.agentNow.delete(file);
    this.replanned.delete(file);
  }

  /**
   * What the user's agent sends now (the system prompt and tools a resume of `file` is sent with), read from its
   * sessions folder the first time a plan of `file` is made (the edge) and then held with the saved inputs.
   */
  private async agentNowFor(file: string, analysis: Analysis): Promise<AgentNow | null> {
    if (!this.agentNow.has(file)) this.agentNow.set(file, await readAgentNow(file, analysis));
    return this.agentNow.get(file) ?? null;
  }

  /** The saved state and decisions of `file`, read from its state file the first time (the edge) and then held. */
  private async savedInputs(file: string): Promise<SavedPlanInputs> {
    let saved = this.saved.get(file);
    if (!saved) {
      saved = await loadSavedPlanInputs(file);
      this.saved.set(file, saved);
    }
    return saved;
  }

  /**
   * The smallest reachable target of `file` (core/compact/reach.ts) with the inputs its plans use (settings, saved
   * state and decisions, what the agent sends now): the one floor the Preview input, the Context Map's floor line and
   * its drag minimum say. Kept per analysis while those inputs are the same (a drag replans at the same floor).
   */
  async reachFloor(file: string, analysis: Analysis): Promise<number> {
    const settings = this.compactSettings(file);
    const { state, decisions } = await this.savedInputs(file);
    const agentNow = await this.agentNowFor(file, analysis);
    const key = JSON.stringify([{ ...settings, targetTokens: 0 }, decisions]);
    const held = this.floors.get(analysis);
    if (held && held.key === key) return held.floor;
    const floor = smallestReachableTarget(analysis, settings, state, decisions, agentNow);
    this.floors.set(analysis, { key, floor });
    floor.catch(() => this.floors.delete(analysis));
    return floor;
  }

  /** The user's decisions for `file`, as the store holds them (what its plans and its Compact follow). */
  decisions(file: string): Promise<UserDecisions> {
    return this.run(async () => (await this.savedInputs(file)).decisions);
  }

  /**
   * Changes the decisions of `file` by `change` (anchored to the rounds they name), saves them with the session and,
   * when it is the shown file, plans again (a decision asks for its plan: shown even when no preview was open).
   * Returns that plan, or null for a file not shown.
   */
  decide(file: string, change: (d: UserDecisions) => UserDecisions): Promise<CompactionPlan | null> {
    return this.run(async () => {
      const s = this._state;
      const shown = s.status === 'ready' && s.file === file ? s : undefined;
      const analysis = shown?.analysis ?? (await inspectFile(file, { subagents: false }));
      const saved = await this.savedInputs(file);
      const next = anchored(change(saved.decisions), analysis);
      await saveDecisions(file, next);
      this.saved.set(file, { ...saved, decisions: next });
      if (!shown) return null;
      this.previews.set(file, this.previews.get(file));
      this.dismissed.delete(file);
      await this.publish(file, shown.analysis);
      return this.plan;
    });
  }

  /** When the agent compacted `file` past its first `linesRead` lines while it is previewed: the next plan says so. */
  private noticeAgentCompaction(file: string, linesRead: number | undefined, next: Analysis): void {
    if (linesRead === undefined || !this.isPreviewing(file)) return;
    const note = replannedNote(compactedSince(linesRead, next));
    if (!note) return;
    this.replanned.set(file, note);
    this.log.info(`${file}: ${note}`);
  }

  private remember(file: string, analysis: Analysis): void {
    this.cache.delete(file);
    this.cache.set(file, analysis);
    while (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
  }

  private async publish(file: string, analysis: Analysis): Promise<void> {
    let plan: CompactionPlan | null = null;
    let planError: string | undefined;
    if (this.isPreviewing(file) && capabilitiesOf(analysis.index.format).plan) {
      try {
        const { state, decisions } = await this.savedInputs(file);
        const agentNow = await this.agentNowFor(file, analysis);
        plan = await planCompaction(analysis, this.compactSettings(file), state, decisions, agentNow);
        const note = this.replanned.get(file);
        if (note) plan = { ...plan, notes: [note, ...plan.notes] };
      } catch (err) {
        planError = err instanceof Error ? err.message : String(err);
        this.log.error(`Could not plan a compaction of ${file}`, err);
      }
    }
    this.set({ status: 'ready', file, analysis, plan, planError, updatedAt: Date.now() });
  }

  private watch(file: string): void {
    if (this.watchedFile === file && this.watcher) return;
    this.unwatch();
    this.watchedFile = file;
    const w = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(vscode.Uri.file(dirname(file)), basename(file)),
    );
    const changed = () => {
      if (this.watchTimer) clearTimeout(this.watchTimer);
      this.watchTimer = setTimeout(() => {
        this.watchTimer = undefined;
        if (this.file === file) void this.refresh();
      }, WATCH_DEBOUNCE_MS);
    };
    w.onDidChange(changed);
    w.onDidCreate(changed);
    w.onDidDelete(() => {
      this.cache.delete(file);
      if (this.file === file) this.set({ status: 'error', file, message: 'The file was deleted.' });
    });
    this.watcher = w;
  }

  private unwatch(): void {
    if (this.watchTimer) clearTimeout(this.watchTimer);
    this.watchTimer = undefined;
    this.watcher?.dispose();
    this.watcher = undefined;
    this.watchedFile = undefined;
  }

  dispose(): void {
    this.unwatch();
    this.emitter.dispose();
  }
}
