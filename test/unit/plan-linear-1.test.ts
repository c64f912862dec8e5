// The linear planner against the reference, part 1 (see planLinear.ts).
import { planLinearSuite } from './planLinear';

planLinearSuite(1);
