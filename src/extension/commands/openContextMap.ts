// Open Context Map: the panel of a transcript (the argument's, the shown one, the active
// editor's, or one picked) showing what fills its context, what it cost and what a
// compaction would keep, summarize and drop.
import type { MapState } from '../../webview/mapProtocol';
import type { Services } from '../services';
import { options, str } from '../../webview/validate';
import { resolveTranscript, tellIfUnreadable } from './args';
import { optionsOf, type Call } from './call';

/** `{ file }`: the transcript to map (default: the shown one). */
export const OPEN_CONTEXT_MAP_OPTIONS = options({ file: str(4_096, { min: 1 }) });

/** Opens (or shows) the Context Map of `file`; its state as shown. */
export async function openContextMap(s: Services, file: string): Promise<MapState | undefined> {
  return (await s.maps.open(file)).state;
}

export async function openContextMapCommand(s: Services, arg: unknown, call: Call): Promise<MapState | undefined> {
  optionsOf(OPEN_CONTEXT_MAP_OPTIONS, 'Open Context Map', arg);
  const file = await resolveTranscript(s, arg, call.ui, { title: 'Open Context Map', openLabel: 'Open Map' });
  if (!file) return undefined;
  const state = await openContextMap(s, file);
  await tellIfUnreadable(s, call.ui, file);
  return state;
}
