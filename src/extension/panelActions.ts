// What the webview panels (Budget Preview, Context Map) do for their links and buttons: the typed functions the
// commands call too (Reveal Round, Compact Transcript), handed to the panels by activate(), so a webview's message
// never travels the command bus as an untyped argument.

/** What to show: a round (by index) or a line of a transcript; neither: a round picked by the user. */
export interface RevealTarget {
  file: string;
  round?: number;
  line?: number;
}

/** How to show it. */
export interface RevealHow {
  /** Move focus to the editor (default false: the tree or the webview keeps focus). */
  focus?: boolean;
  /** Show the round's readable form (for `line`: the round holding it, at the line's part) instead of the raw lines. */
  readable?: boolean;
  /** Leave the active editor group (a webview such as the Context Map) as it is: open in the transcript's group. */
  keepGroup?: boolean;
}

export interface PanelActions {
  /** Reveal Round's function: shows a round or a line of a transcript. */
  reveal(target: RevealTarget, how: RevealHow): Promise<unknown>;
  /** Compact Transcript's function on `file`, with its confirmation. */
  compact(file: string): Promise<unknown>;
}
