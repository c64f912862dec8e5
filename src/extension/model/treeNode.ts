// One node of the Rounds tree as plain data (tree.ts builds them, health.ts adds the resume-health node, the view
// renders them). Pure: no `vscode` import.
import type { RoundAction } from '../../core/compact/types';

export type NodeKind =
  | 'header'
  | 'plan'
  | 'boundary'
  | 'round'
  | 'history'
  | 'message'
  | 'tool'
  | 'sidechains'
  | 'sidechain'
  | 'malformedGroup'
  | 'malformed'
  | 'notes'
  | 'note'
  | 'status';

export interface NodeCommand {
  command: string;
  title: string;
  args: unknown[];
}

export interface TreeNodeModel {
  /** Stable across refreshes of the same file, so expansion state survives live updates. */
  id: string;
  kind: NodeKind;
  label: string;
  description?: string;
  tooltip?: string;
  /** Codicon id. */
  icon: string;
  /** Theme color id for the icon. */
  color?: string;
  contextValue: string;
  collapsible: 'none' | 'collapsed' | 'expanded';
  command?: NodeCommand;
  file: string;
  round?: number;
  /** Compaction segment (history groups). */
  segment?: number;
  line?: number;
  mark?: RoundAction;
  /** For sidechains stored in their own file. */
  target?: string;
  /** Compact boundaries: the compaction's number (1-based, in file order). */
  compaction?: number;
}
