// The fuzz shard "lines" (see fuzz.ts): every fixture mutated by each of its kinds.
import { fuzzShard } from './fuzz';

fuzzShard('lines');
