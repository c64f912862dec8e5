// Seeded PRNG and the ids built from it: same seed, same ids, no clock and no Math.random.

export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** mulberry32 */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
  chars(n: number, alphabet: string): string {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(this.next() * alphabet.length)];
    return s;
  }
  hex(n: number): string {
    return this.chars(n, '0123456789abcdef');
  }
  uuid(): string {
    const h = this.hex(32).split('');
    h[12] = '4';
    h[16] = '89ab'[Math.floor(this.next() * 4)];
    const s = h.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }
}

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export class Ids {
  private used = new Set<string>();
  constructor(private rng: Rng) {}
  private unique(make: () => string): string {
    for (;;) {
      const v = make();
      if (!this.used.has(v)) {
        this.used.add(v);
        return v;
      }
    }
  }
  uuid(): string {
    return this.unique(() => this.rng.uuid());
  }
  message(): string {
    return this.unique(() => 'msg_01' + this.rng.chars(22, B58));
  }
  toolUse(): string {
    return this.unique(() => 'toolu_01' + this.rng.chars(22, B58));
  }
  request(): string {
    return this.unique(() => 'req_011C' + this.rng.chars(20, B58));
  }
  agent(): string {
    return this.unique(() => 'a' + this.rng.hex(16));
  }
  signature(thinkingChars: number): string {
    const body = Math.max(280, Math.round((180 + thinkingChars * 1.3) / 4) * 4);
    return (
      'E' +
      this.rng.pick(['o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w']) +
      this.rng.chars(body, B64) +
      (this.rng.chance(0.5) ? '=' : '')
    );
  }
}
