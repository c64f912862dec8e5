// Verbs beyond inspect, loaded on demand.
export const verbs: Record<string, (argv: string[]) => Promise<number>> = {};
