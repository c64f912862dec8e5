// Repair over sequences of damage, part 1 of the fixtures (see repairSequences.ts).
import { repairSequencesSuite } from './repairSequences';

repairSequencesSuite(1);
