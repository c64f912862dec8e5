// Resume Session and Copy Resume Command, for any transcript (a compaction's result, the one shown, the active
// editor's, an Explorer selection), in the agent that wrote it: Claude Code resumes a session by the id in its file
// name, Codex a rollout by the thread id its session_meta names; each started in the session's working folder, with
// the program of its setting (agentCompactor.claudePath / codexPath), checked before anything starts. Sessions of the
// read-only agents (Gemini CLI, Cline, Copilot CLI) get the reason no command is offered. What stands in the way is
// said before anything is started.
import * as vscode from 'vscode';
import { open } from 'node:fs/promises';
import {
  copyableResumeCommand,
  findProgram,
  isDirectory,
  isInside,
  resumeProblem,
  resumeShellLine,
  terminalName,
  type ResumeTarget,
} from '../model/resume';
import { noResumeReason, programFor, resumeAgentName, resumeAgentOf, resumeSpec } from '../../core/resume';
import { agentFolders } from '../../core/sessionFolders';
import { recordAgentOf, type AgentId } from '../../core/formats/registry';
import { indexJsonDocument } from '../../core/formats/documents';
import { agentPrograms } from '../model/settings';
import { getSettings } from '../settings';
import type { Services } from '../services';
import { CommandInputError, isProgrammatic, options, resolveTranscript } from './args';

/** A session to resume: its file and, when the caller knows them (a compaction's result), its id and folder. */
export interface ResumeRequest {
  file: string;
  /** The session id; default: the file name (Claude Code) or the rollout's session_meta (Codex). */
  sessionId?: string;
  /** The working folder; default: the one the file's lines record. */
  cwd?: string;
}

export interface ResumeLaunch {
  file: string;
  /** The agent it was resumed in. */
  agent: AgentId;
  sessionId: string;
  cwd: string;
  terminalName: string;
  /** What was typed into the terminal. */
  commandLine: string;
}

/**
 * The folder the agent must be started in to resume the session in `file` (null: none recorded), as its module
 * locates it: for Claude Code the recorded folder that names its project folder, else where it was started; for
 * Codex the rollout's session_meta.
 */
export async function sessionCwd(agent: AgentId, file: string): Promise<string | null> {
  return (await resumeSpec(agent).locate(file)).cwd;
}

/** Bytes read at most to find a JSONL file's first record. */
const HEAD_BYTES = 64 * 1024;

/** The agent that wrote `file`: the shown transcript's, else decided by content as the reader decides it. */
async function formatOf(s: Services, file: string): Promise<AgentId> {
  if (s.store.file === file && s.store.analysis) return s.store.analysis.index.format.id;
  // A JSON document (Gemini CLI, Cline, a Claude Code array) is told apart by reading it, as the store does.
  if (!/\.jsonl$/i.test(file)) return (await indexJsonDocument(file))?.format.id ?? 'claude-code';
  const fh = await open(file, 'r');
  let head: string;
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    head = buf.toString('utf8', 0, bytesRead);
  } finally {
    await fh.close();
  }
  for (const line of head.split('\n')) {
    if (!line.trim()) continue;
    try {
      return recordAgentOf(JSON.parse(line)).id;
    } catch {
      break; // not JSON (or cut at HEAD_BYTES): Claude Code's reader is the default
    }
  }
  return 'claude-code';
}

/** The agent's program, as its setting names it (`agentCompactor.claudePath`, `agentCompactor.codexPath`). */
function programOf(agent: AgentId, file: string): { program: string; setting: string } {
  const config = getSettings(vscode.Uri.file(file));
  return {
    program: programFor(agent, agentPrograms(config)),
    setting: `agentCompactor.${resumeSpec(agent).programOption}`,
  };
}

/** Where the agent keeps its sessions (it finds a session by id only there), as its module names the folder. */
function agentSessionsFolder(agent: AgentId): string | null {
  return agentFolders().find((f) => f.id === agent)?.folder ?? null;
}

/** The session's agent, and the id and folder its module locates (unless the request names them). */
export async function resumeTargetOf(s: Services, request: ResumeRequest): Promise<ResumeTarget | { refusal: string }> {
  const { file } = request;
  const format = await formatOf(s, file);
  const agent = resumeAgentOf(format);
  if (!agent) return { refusal: noResumeReason(format)! };
  const located = await resumeSpec(agent).locate(file);
  if (located.refusal) return { refusal: located.refusal };
  const sessionId = request.sessionId || located.sessionId;
  const cwd = request.cwd || located.cwd;
  return { file, agent, sessionId, cwd, cwdExists: cwd ? await isDirectory(cwd) : false };
}

/** The request a command invocation names: the file of its argument (or the shown one, or one picked). */
async function requestOf(s: Services, arg: unknown, title: string): Promise<ResumeRequest | undefined> {
  const file = await resolveTranscript(s, arg, { title, openLabel: 'Choose Transcript' });
  if (!file) {
    if (isProgrammatic(arg)) throw new CommandInputError(`${title}: no transcript given and none is shown`);
    return undefined;
  }
  const o = options<ResumeRequest>(arg);
  return {
    file,
    sessionId: typeof o.sessionId === 'string' ? o.sessionId : undefined,
    cwd: typeof o.cwd === 'string' ? o.cwd : undefined,
  };
}

/** Says why the session cannot be resumed (a warning); the error thrown to code callers carries it too. */
function refuse(s: Services, message: string): never {
  s.log.warn(message);
  void vscode.window.showWarningMessage(message);
  throw new CommandInputError(message);
}

const OPEN_SETTING = 'Open Setting';

/** The agent's program is not where its setting says: no terminal is started; the message offers the setting. */
function missingProgram(s: Services, agent: AgentId, program: string, setting: string): never {
  const name = resumeAgentName(agent);
  const message = `${name} was not found: "${program}" is not ${/[\\/]/.test(program) ? 'an executable file' : 'a program on PATH'}. Install ${name}, or set ${setting} to where it is (Copy Resume Command still copies the command).`;
  s.log.warn(message);
  void vscode.window.showWarningMessage(message, OPEN_SETTING).then((choice) => {
    if (choice === OPEN_SETTING) void vscode.commands.executeCommand('workbench.action.openSettings', setting);
  });
  throw new CommandInputError(message);
}

/** The target of `request`, or the reason it has none, said (and thrown); an unreadable file is said the same way. */
async function targetOrRefuse(s: Services, request: ResumeRequest): Promise<ResumeTarget> {
  let t: ResumeTarget | { refusal: string };
  try {
    t = await resumeTargetOf(s, request);
  } catch (err) {
    refuse(s, `Cannot read ${request.file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if ('refusal' in t) refuse(s, t.refusal);
  return t;
}

/**
 * Resumes the session in its agent: a new terminal in its working folder running `<claude> --resume <id>` or
 * `<codex> resume <id>`. What stands in the way (no agent resumes it, no id, no folder here, no program) is said and
 * thrown, and nothing starts.
 */
export async function resumeSession(s: Services, request: ResumeRequest): Promise<ResumeLaunch> {
  const t = await targetOrRefuse(s, request);
  const { program, setting } = programOf(t.agent, t.file);
  const problem = resumeProblem(t, 'launch', program);
  if (problem) refuse(s, problem.message);
  if (!(await findProgram(program))) missingProgram(s, t.agent, program, setting);
  const sessionId = t.sessionId!;
  const cwd = t.cwd!;
  const name = terminalName(t.agent, sessionId);
  const commandLine = resumeShellLine(t.agent, program, sessionId);
  const terminal = vscode.window.createTerminal({ name, cwd, iconPath: new vscode.ThemeIcon('terminal') });
  terminal.show();
  terminal.sendText(commandLine, true);
  const agent = resumeAgentName(t.agent);
  s.log.info(`Resume in ${agent}: ${commandLine} in ${cwd} (terminal "${name}")`);
  const folder = agentSessionsFolder(t.agent);
  if (folder && !isInside(t.file, folder)) {
    void vscode.window.showWarningMessage(
      `Started \`${commandLine}\` in ${cwd}. Note: ${t.file} is not in ${agent}'s sessions folder (${folder}), so ${agent} finds session ${sessionId} only if a copy of it is there.`,
    );
  }
  return { file: t.file, agent: t.agent, sessionId, cwd, terminalName: name, commandLine };
}

/** Puts the POSIX command that resumes the session (`cd <folder> && <program> …`) on the clipboard, and says so. */
export async function copyResumeCommand(s: Services, request: ResumeRequest): Promise<string> {
  const t = await targetOrRefuse(s, request);
  const { program } = programOf(t.agent, t.file);
  const problem = resumeProblem(t, 'copy', program);
  const command = problem ? null : copyableResumeCommand(t, program);
  if (!command) refuse(s, problem?.message ?? `Cannot build a resume command for ${t.file}.`);
  await vscode.env.clipboard.writeText(command);
  s.log.info(`Copied resume command: ${command}`);
  const note = t.cwdExists ? '' : ` (note: ${t.cwd} does not exist on this machine; run it where it does)`;
  void vscode.window.showInformationMessage(`Copied to the clipboard: ${command}${note}`);
  return command;
}

/** Runs `act` for a command invocation; a refusal, already said, is thrown back only to code that called it. */
async function asCommand<T>(
  s: Services,
  arg: unknown,
  title: string,
  act: (r: ResumeRequest) => Promise<T>,
): Promise<T | undefined> {
  const request = await requestOf(s, arg, title);
  if (!request) return undefined;
  try {
    return await act(request);
  } catch (err) {
    if (err instanceof CommandInputError && !isProgrammatic(arg)) return undefined;
    throw err;
  }
}

export function resumeSessionCommand(s: Services, arg?: unknown): Promise<ResumeLaunch | undefined> {
  return asCommand(s, arg, 'Resume Session', (r) => resumeSession(s, r));
}

export function copyResumeCommandCommand(s: Services, arg?: unknown): Promise<string | undefined> {
  return asCommand(s, arg, 'Copy Resume Command', (r) => copyResumeCommand(s, r));
}
