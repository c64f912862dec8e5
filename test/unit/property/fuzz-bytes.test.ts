// The fuzz shard "bytes" (see fuzz.ts): every fixture mutated by each of its kinds.
import { fuzzShard } from './fuzz';

fuzzShard('bytes');
