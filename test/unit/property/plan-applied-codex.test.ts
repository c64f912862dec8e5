// Plan shown = plan applied over the Codex fixtures (see planApplied.ts).
import { planAppliedSuite } from './planApplied';

planAppliedSuite('codex');
