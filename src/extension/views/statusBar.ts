// Status bar item: the shown transcript's active context size and round count.
import * as vscode from 'vscode';
import { baseName, formatNumber, plural } from '../model/format';
import { contextPartsText, contextText, statusBarItem } from '../model/contextText';
import { autoCompactText, contextLimits, limitFacts } from '../../core/limits';
import { contextNow } from '../../core/context';
import { planSummary } from '../model/planText';
import { nextTurnText } from '../model/cacheText';
import { PRICES_SETTING_HINT } from '../model/mapState';
import { analysisCost } from '../../core/contextMap';
import { costFigure, costNotes } from '../../core/cost';
import { costSettings } from '../settings';
import type { TranscriptStore } from '../store';

export class ContextStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  /** The tooltip as plain text (what the test API reads; the item shows it as markdown-escaped text). */
  tooltipText: string | undefined;

  constructor(private readonly store: TranscriptStore) {
    this.item = vscode.window.createStatusBarItem('agentCompactor.context', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'Agent Compactor: context size';
    this.item.command = 'agentCompactor.rounds.focus';
    this.disposables.push(store.onDidChange(() => this.update()));
    this.update();
  }

  update(): void {
    const s = this.store.state;
    if (s.status === 'empty') {
      this.tooltipText = undefined;
      this.item.hide();
      return;
    }
    // Only the ready state's tooltip is markdown; the others' plain text names them as it is.
    this.item.accessibilityInformation = undefined;
    if (s.status === 'loading') {
      this.item.text = `$(loading~spin) ${baseName(s.file)}`;
      this.item.tooltip = this.tooltipText = s.message;
    } else if (s.status === 'error' && s.empty) {
      this.item.text = `$(circle-outline) ${baseName(s.file)} · empty`;
      this.item.tooltip = this.tooltipText = `${baseName(s.file)} has no lines yet.`;
    } else if (s.status === 'error') {
      this.item.text = `$(warning) ${baseName(s.file)}`;
      this.item.tooltip = this.tooltipText = s.message;
    } else {
      const t = s.analysis.report.totals;
      const context = contextNow(s.analysis.report);
      const shown = statusBarItem(baseName(s.file), context, s.analysis.report);
      this.item.text = `$(symbol-ruler) ${shown.text}`;
      this.item.accessibilityInformation = { label: shown.accessibilityLabel };
      // The same threshold the Context Map draws (core/limits.ts).
      const limits = contextLimits(limitFacts(s.analysis.index.format.id, s.analysis.index.entries));
      const parts = [
        baseName(s.file),
        `The next request would carry: ${contextText(context)} = ${contextPartsText(context)}`,
        `${s.analysis.index.format.agent} ${autoCompactText(limits)}`,
        `${plural(t.rounds, 'round')}, ${formatNumber(t.activeRounds)} in the active context`,
      ];
      const { prices, summarizer } = costSettings(s.file);
      const cost = analysisCost(s.analysis, prices);
      parts.push(
        `Cost: ${costFigure(cost, (n) => `$${n.toFixed(2)}`)} over ${plural(cost.responses.size, 'response')}${cost.agent ? `; the agent's own figure: $${cost.agent.usd.toFixed(2)}` : ''}`,
      );
      parts.push(...costNotes(cost, PRICES_SETTING_HINT));
      if (s.plan) parts.push(planSummary(s.plan, context));
      // The next turn as it is and (with a plan) compacted: the line the plan's tooltip and the dialog show.
      parts.push(nextTurnText(s.analysis, s.plan, Date.now(), prices, summarizer));
      parts.push('Click to show the rounds.');
      this.tooltipText = parts.join('\n\n');
      const tip = new vscode.MarkdownString();
      tip.appendText(this.tooltipText);
      this.item.tooltip = tip;
    }
    this.item.show();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.item.dispose();
  }
}
