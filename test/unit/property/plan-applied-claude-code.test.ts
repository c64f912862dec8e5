// Plan shown = plan applied over the Claude Code fixtures (see planApplied.ts).
import { planAppliedSuite } from './planApplied';

planAppliedSuite('claude-code');
