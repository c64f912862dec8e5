// Open Context Map: the panel of a transcript (the argument's, the shown one, the active
// editor's, or one picked) showing what fills its context, what it cost and what a
// compaction would keep, summarize and drop.
import * as vscode from 'vscode';
import type { MapState } from '../../webview/mapProtocol';
import type { Services } from '../services';
import { CommandInputError, isProgrammatic, resolveTranscript } from './args';

export async function openContextMapCommand(s: Services, arg?: unknown): Promise<MapState | undefined> {
  const file = await resolveTranscript(s, arg, { title: 'Open Context Map', openLabel: 'Open Map' });
  if (!file) {
    if (isProgrammatic(arg)) throw new CommandInputError('openContextMap: no transcript given and none is shown');
    return undefined;
  }
  const snapshot = await s.maps.open(file);
  if (s.store.state.status === 'error' && s.store.file === file && !isProgrammatic(arg))
    void vscode.window.showWarningMessage(s.store.state.message);
  return snapshot.state;
}
