// The fuzz shard "fields" (see fuzz.ts): every fixture mutated by each of its kinds.
import { fuzzShard } from './fuzz';

fuzzShard('fields');
