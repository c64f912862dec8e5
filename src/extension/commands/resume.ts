// Resume in Claude Code and Copy Resume Command, for any transcript (a compaction's result,
// the one shown, the active editor's, an Explorer selection). Claude Code resumes a session by
// the id in its file name, started in the session's working folder; what stands in the way is
// said before anything is started.
import * as vscode from 'vscode';
import { sessionsFolder } from '../model/sessions';
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
import { projectFolderOf, readSessionInfo, sessionIdFromFile } from '../../core/session';
import { getSettings } from '../settings';
import type { Services } from '../services';
import { CommandInputError, isProgrammatic, options, resolveTranscript } from './args';

export interface ResumeArgs {
  file?: string;
  /** The session id, when the caller knows it (a compaction's result); default: the file name. */
  sessionId?: string;
  /** The working folder, when the caller knows it; default: the first one the file's lines record. */
  cwd?: string;
}

export interface ResumeLaunch {
  file: string;
  sessionId: string;
  cwd: string;
  terminalName: string;
  /** What was typed into the terminal. */
  commandLine: string;
}

/** The folder Claude Code must be started in to resume the session in `file` (null: none recorded). */
export async function sessionCwd(file: string): Promise<string | null> {
  return (await readSessionInfo(file, { projectFolder: projectFolderOf(file, sessionsFolder()) })).cwd;
}

async function resumeTarget(s: Services, arg: unknown, title: string): Promise<ResumeTarget | undefined> {
  const file = await resolveTranscript(s, arg, { title, openLabel: 'Choose Transcript' });
  if (!file) {
    if (isProgrammatic(arg)) throw new CommandInputError(`${title}: no transcript given and none is shown`);
    return undefined;
  }
  const o = options<ResumeArgs>(arg);
  const sessionId = typeof o.sessionId === 'string' && o.sessionId ? o.sessionId : sessionIdFromFile(file);
  let cwd = typeof o.cwd === 'string' && o.cwd ? o.cwd : null;
  if (!cwd) {
    try {
      cwd = await sessionCwd(file);
    } catch (err) {
      const msg = `Cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`;
      s.log.error(msg);
      void vscode.window.showErrorMessage(msg);
      if (isProgrammatic(arg)) throw new CommandInputError(msg);
      return undefined;
    }
  }
  return { file, sessionId, cwd, cwdExists: cwd ? await isDirectory(cwd) : false };
}

/** Shows why the transcript cannot be resumed; programmatic callers also get it thrown. */
function refuse(s: Services, arg: unknown, message: string): undefined {
  s.log.warn(message);
  void vscode.window.showWarningMessage(message);
  if (isProgrammatic(arg)) throw new CommandInputError(message);
  return undefined;
}

const OPEN_SETTING = 'Open Setting';

/** Claude Code is not where the setting says: no terminal is started; the message offers the setting. */
function missingClaude(s: Services, arg: unknown, claudePath: string): undefined {
  const message = `Claude Code was not found: "${claudePath}" is not ${/[\\/]/.test(claudePath) ? 'an executable file' : 'a program on PATH'}. Install Claude Code, or set agentCompactor.claudePath to where it is (Copy Resume Command still copies the command).`;
  s.log.warn(message);
  if (isProgrammatic(arg)) throw new CommandInputError(message);
  void vscode.window.showWarningMessage(message, OPEN_SETTING).then((choice) => {
    if (choice === OPEN_SETTING)
      void vscode.commands.executeCommand('workbench.action.openSettings', 'agentCompactor.claudePath');
  });
  return undefined;
}

export async function resumeInClaudeCodeCommand(s: Services, arg?: unknown): Promise<ResumeLaunch | undefined> {
  const t = await resumeTarget(s, arg, 'Resume in Claude Code');
  if (!t) return undefined;
  const { claudePath } = getSettings(vscode.Uri.file(t.file));
  const problem = resumeProblem(t, 'launch', claudePath);
  if (problem) return refuse(s, arg, problem.message);
  if (!(await findProgram(claudePath))) return missingClaude(s, arg, claudePath);
  const sessionId = t.sessionId!;
  const cwd = t.cwd!;
  const name = terminalName(sessionId);
  const commandLine = resumeShellLine(claudePath, sessionId);
  const terminal = vscode.window.createTerminal({ name, cwd, iconPath: new vscode.ThemeIcon('terminal') });
  terminal.show();
  terminal.sendText(commandLine, true);
  s.log.info(`Resume in Claude Code: ${commandLine} in ${cwd} (terminal "${name}")`);
  if (!isInside(t.file, sessionsFolder())) {
    void vscode.window.showWarningMessage(
      `Started \`${commandLine}\` in ${cwd}. Note: ${t.file} is not in Claude Code's sessions folder (${sessionsFolder()}), so Claude Code finds session ${sessionId} only if a copy of it is there.`,
    );
  }
  return { file: t.file, sessionId, cwd, terminalName: name, commandLine };
}

export async function copyResumeCommandCommand(s: Services, arg?: unknown): Promise<string | undefined> {
  const t = await resumeTarget(s, arg, 'Copy Resume Command');
  if (!t) return undefined;
  const { claudePath } = getSettings(vscode.Uri.file(t.file));
  const problem = resumeProblem(t, 'copy', claudePath);
  const command = problem ? null : copyableResumeCommand(t, claudePath);
  if (!command) return refuse(s, arg, problem?.message ?? `Cannot build a resume command for ${t.file}.`);
  await vscode.env.clipboard.writeText(command);
  s.log.info(`Copied resume command: ${command}`);
  const note = t.cwdExists ? '' : ` (note: ${t.cwd} does not exist on this machine; run it where it does)`;
  void vscode.window.showInformationMessage(`Copied to the clipboard: ${command}${note}`);
  return command;
}
