// Where Claude Code keeps its sessions (`$CLAUDE_CONFIG_DIR/projects` or `~/.claude/projects`, one folder per project
// named after its path), what a session file records of itself, and how it is resumed: `claude --resume <id>`, where
// the id is the file's name, started in the folder that names its project folder.
import { basename, dirname, join, resolve } from 'node:path';
import { homedir } from 'node:os';
import { projectFolderName, projectFolderOf, readSessionInfo, sessionIdFromFile } from '../../session';
import { scanSessions, sessionTitleAndCwd, summarizeSession } from './sessionSummary';
import type { AgentSessions, ResumeSpec, SessionFacts, SessionsWhere } from '../agent';

/** Claude Code's sessions folder: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
export function claudeProjectsFolder(env: NodeJS.ProcessEnv, home: string): string {
  const config =
    env.CLAUDE_CONFIG_DIR && env.CLAUDE_CONFIG_DIR.trim() ? env.CLAUDE_CONFIG_DIR.trim() : join(home, '.claude');
  return join(config, 'projects');
}

/** The folder Claude Code must be started in to resume `file` (the one its project folder names), from its lines. */
async function sessionCwd(file: string, recorded: string | null): Promise<string | null> {
  const folder = basename(dirname(resolve(file)));
  // Claude Code finds a session only when started in the folder its project folder names (core/session.ts).
  if (recorded && projectFolderName(recorded) === folder) return recorded;
  return (await readSessionInfo(file, { projectFolder: folder })).cwd;
}

export const claudeSessions: AgentSessions = {
  locations: [
    {
      label: 'Claude Code',
      folders: (w: SessionsWhere) => [claudeProjectsFolder(w.env, w.home)],
      depth: 1,
      isSessionFile: (name) => name.endsWith('.jsonl'),
      projectFolders: true,
    },
  ],
  where: 'Claude Code $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects',
  nameOf: (file) => basename(file, '.jsonl'),
  projects: { summarize: summarizeSession, scan: scanSessions },
  async describe(file: string): Promise<SessionFacts> {
    const { title, cwd } = await sessionTitleAndCwd(file);
    return { title, sessionId: sessionIdFromFile(file), cwd: await sessionCwd(file, cwd) };
  },
};

export const claudeResume: ResumeSpec = {
  program: 'claude',
  programOption: 'claudePath',
  args: (id) => ['--resume', id],
  notAnId: (name) =>
    `Claude Code cannot resume ${name} by id: it finds a session by its file name, so the transcript must be named ` +
    '<session-uuid>.jsonl and sit in ~/.claude/projects/<project>/ (the folder Claude Code keeps for the project it was started in).',
  folderNeeded: 'Claude Code finds a session only when started in the folder it was recorded in',
  async locate(file) {
    // The project folder names the folder only when the file is in Claude Code's sessions folder; elsewhere the
    // folder the session was started in is its first recorded one (readSessionInfo without a project folder).
    const projectFolder = projectFolderOf(file, claudeProjectsFolder(process.env, homedir()));
    return { sessionId: sessionIdFromFile(file), cwd: (await readSessionInfo(file, { projectFolder })).cwd };
  },
};
