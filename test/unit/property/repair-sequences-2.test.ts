// Repair over sequences of damage, part 2 of the fixtures (see repairSequences.ts).
import { repairSequencesSuite } from './repairSequences';

repairSequencesSuite(2);
