// The linear planner against the reference, part 2 (see planLinear.ts).
import { planLinearSuite } from './planLinear';

planLinearSuite(2);
