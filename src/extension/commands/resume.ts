// Resume Session and Copy Resume Command, for any transcript (a compaction's result, the one shown, the active
// editor's, an Explorer selection), in the agent that wrote it: Claude Code resumes a session by the id in its file
// name, Codex a rollout by the thread id its session_meta names; each started in the session's working folder, with
// the program of its setting (agentCompactor.claudePath / codexPath), checked before anything starts. Sessions of the
// read-only agents (Gemini CLI, Cline, Copilot CLI) get the reason no command is offered. What stands in the way is
// said before anything is started.
import * as vscode from 'vscode';
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
import type { AgentId } from '../../core/formats/registry';
import { readSessionIndex } from '../../core/inspect';
import { agentPrograms } from '../model/settings';
import { getSettings } from '../settings';
import type { Services } from '../services';
import { options, str } from '../../webview/validate';
import { resolveTranscript } from './args';
import { CommandInputError, optionsOf, type Call } from './call';

/** `{ file, sessionId, cwd }`: the session (default: the shown one), and its id and folder when the caller knows them. */
export const RESUME_OPTIONS = options({
  file: str(4_096, { min: 1 }),
  sessionId: str(200, { min: 1 }),
  cwd: str(4_096, { min: 1 }),
});

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

/**
 * The agent that wrote `file`: the shown transcript's, else the one core's reader decides on (the same decision
 * every verb makes: readSessionIndex).
 */
async function agentOfFile(s: Services, file: string): Promise<AgentId> {
  if (s.store.file === file && s.store.analysis) return s.store.analysis.index.format.id;
  return (await readSessionIndex(file)).format.id;
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
  const format = await agentOfFile(s, file);
  const agent = resumeAgentOf(format);
  if (!agent) return { refusal: noResumeReason(format)! };
  const located = await resumeSpec(agent).locate(file);
  if (located.refusal) return { refusal: located.refusal };
  const sessionId = request.sessionId || located.sessionId;
  const cwd = request.cwd || located.cwd;
  return { file, agent, sessionId, cwd, cwdExists: cwd ? await isDirectory(cwd) : false };
}

/** The request a command invocation names: the file of its argument (or the shown one, or one picked). */
async function requestOf(s: Services, arg: unknown, call: Call, title: string): Promise<ResumeRequest | undefined> {
  const o = optionsOf(RESUME_OPTIONS, title, arg);
  const file = await resolveTranscript(s, arg, call.ui, { title, openLabel: 'Choose Transcript' });
  return file ? { file, sessionId: o.sessionId, cwd: o.cwd } : undefined;
}

/** Why the session cannot be resumed: a refusal (a warning to a person). */
function refuse(message: string): never {
  throw new CommandInputError(message);
}

const OPEN_SETTING = 'Open Setting';

/** The agent's program is not where its setting says: no terminal is started; the refusal offers the setting. */
function missingProgram(agent: AgentId, program: string, setting: string): never {
  const name = resumeAgentName(agent);
  const message = `${name} was not found: "${program}" is not ${/[\\/]/.test(program) ? 'an executable file' : 'a program on PATH'}. Install ${name}, or set ${setting} to where it is (Copy Resume Command still copies the command).`;
  throw new CommandInputError(message, {
    actions: [
      { title: OPEN_SETTING, run: () => vscode.commands.executeCommand('workbench.action.openSettings', setting) },
    ],
  });
}

/** The target of `request`, or the reason it has none, refused; an unreadable file is refused the same way. */
async function targetOrRefuse(s: Services, request: ResumeRequest): Promise<ResumeTarget> {
  let t: ResumeTarget | { refusal: string };
  try {
    t = await resumeTargetOf(s, request);
  } catch (err) {
    refuse(`Cannot read ${request.file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if ('refusal' in t) refuse(t.refusal);
  return t;
}

/**
 * Resumes the session in its agent: a new terminal in its working folder running `<claude> --resume <id>` or
 * `<codex> resume <id>`. What stands in the way (no agent resumes it, no id, no folder here, no program) is refused
 * (call.ts tells a person), and nothing starts.
 */
export async function resumeSession(s: Services, request: ResumeRequest): Promise<ResumeLaunch> {
  const t = await targetOrRefuse(s, request);
  const { program, setting } = programOf(t.agent, t.file);
  const problem = resumeProblem(t, 'launch', program);
  if (problem) refuse(problem.message);
  if (!(await findProgram(program))) missingProgram(t.agent, program, setting);
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
  if (!command) refuse(problem?.message ?? `Cannot build a resume command for ${t.file}.`);
  await vscode.env.clipboard.writeText(command);
  s.log.info(`Copied resume command: ${command}`);
  const note = t.cwdExists ? '' : ` (note: ${t.cwd} does not exist on this machine; run it where it does)`;
  void vscode.window.showInformationMessage(`Copied to the clipboard: ${command}${note}`);
  return command;
}

export async function resumeSessionCommand(s: Services, arg: unknown, call: Call): Promise<ResumeLaunch | undefined> {
  const request = await requestOf(s, arg, call, 'Resume Session');
  return request ? resumeSession(s, request) : undefined;
}

export async function copyResumeCommandCommand(s: Services, arg: unknown, call: Call): Promise<string | undefined> {
  const request = await requestOf(s, arg, call, 'Copy Resume Command');
  return request ? copyResumeCommand(s, request) : undefined;
}
