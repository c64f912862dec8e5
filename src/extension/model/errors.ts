// What to tell the user after a failed compaction, and which actions to offer.
// Pure: no `vscode` import (the command turns actions into buttons).
import type { CompactErrorCode } from '../../core/compact/types';
import type { Summarizer } from './settings';

export type ErrorAction = 'Set API Key' | 'Use Offline Summary' | 'Retry' | 'Open Settings' | 'Show Log';

export interface ErrorAdvice {
  severity: 'error' | 'warning' | 'info';
  message: string;
  actions: ErrorAction[];
}

export function isCompactErrorLike(e: unknown): e is { code: CompactErrorCode; message: string } {
  return e instanceof Error && e.name === 'CompactError' && typeof (e as { code?: unknown }).code === 'string';
}

export function adviceFor(error: unknown, summarizer: Summarizer): ErrorAdvice {
  const message = error instanceof Error ? error.message : String(error);
  if (!isCompactErrorLike(error)) {
    return { severity: 'error', message: `Compaction failed: ${message}`, actions: ['Show Log'] };
  }
  const offline: ErrorAction[] = summarizer !== 'extractive' ? ['Use Offline Summary'] : [];
  switch (error.code) {
    case 'cancelled':
      return { severity: 'info', message: 'Compaction cancelled; nothing was written.', actions: [] };
    case 'auth':
      return {
        severity: 'error',
        message: `The Anthropic API rejected the key: ${message}`,
        actions: ['Set API Key', ...offline],
      };
    case 'not-found':
      return { severity: 'error', message: `Unknown model: ${message}`, actions: ['Open Settings', ...offline] };
    case 'network':
      return {
        severity: 'error',
        message: `Could not reach the Anthropic API: ${message}`,
        actions: ['Retry', ...offline, 'Show Log'],
      };
    case 'api':
      return {
        severity: 'error',
        message: `The Anthropic API failed: ${message}`,
        actions: ['Retry', ...offline, 'Show Log'],
      };
    case 'changed-on-disk':
      return {
        severity: 'warning',
        message: `The transcript changed while compacting; nothing was written. ${message}`,
        actions: ['Retry'],
      };
    case 'locked':
      return { severity: 'warning', message, actions: [] };
    case 'nothing-to-compact':
      return { severity: 'info', message, actions: ['Open Settings'] };
    case 'invalid-output':
      return {
        severity: 'error',
        message: `The compacted transcript failed validation; nothing was written. ${message}`,
        actions: ['Show Log'],
      };
    case 'unsafe-path':
      return { severity: 'error', message, actions: ['Show Log'] };
    case 'bad-backup':
      return { severity: 'error', message, actions: [] };
    case 'unsupported-format':
      return { severity: 'warning', message, actions: [] };
    case 'wrong-summarizer':
      return { severity: 'warning', message, actions: ['Use Offline Summary', 'Open Settings'] };
    case 'write-failed':
      return { severity: 'error', message: `Nothing was written: ${message}`, actions: ['Show Log'] };
    case 'exists':
      // Only an explicit output file can exist already (a fork gets a new name): nothing was written.
      return { severity: 'warning', message: `Nothing was written: ${message}`, actions: [] };
    default:
      return { severity: 'error', message, actions: ['Show Log'] };
  }
}
