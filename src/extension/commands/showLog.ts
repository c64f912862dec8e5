// Show Log: the Agent Compactor output channel.
import type { Services } from '../services';

export function showLogCommand(s: Services): boolean {
  s.log.show();
  return true;
}
