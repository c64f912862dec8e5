// Line diff (Myers) for structuredPatch, git diff and git diff --stat.

type DiffOp = { t: ' ' | '-' | '+'; s: string };

function diffLines(a: string[], b: string[]): DiffOp[] {
  // Trim the common prefix and suffix first: edits are small.
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const A = a.slice(pre, a.length - suf);
  const B = b.slice(pre, b.length - suf);
  const n = A.length;
  const m = B.length;
  const max = n + m;
  const v = new Map<number, number>();
  v.set(1, 0);
  const trace: Map<number, number>[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(new Map(v));
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && (v.get(k - 1) ?? -1) < (v.get(k + 1) ?? -1))) x = v.get(k + 1) ?? 0;
      else x = (v.get(k - 1) ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && A[x] === B[y]) {
        x++;
        y++;
      }
      v.set(k, x);
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  // Backtrack
  const mid: DiffOp[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d];
    const k = x - y;
    let prevK: number;
    if (k === -d || (k !== d && (vd.get(k - 1) ?? -1) < (vd.get(k + 1) ?? -1))) prevK = k + 1;
    else prevK = k - 1;
    const prevX = vd.get(prevK) ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      mid.push({ t: ' ', s: A[x - 1] });
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) mid.push({ t: '+', s: B[y - 1] });
      else mid.push({ t: '-', s: A[x - 1] });
    }
    x = prevX;
    y = prevY;
  }
  mid.reverse();
  const ops: DiffOp[] = [];
  for (let i = 0; i < pre; i++) ops.push({ t: ' ', s: a[i] });
  ops.push(...mid);
  for (let i = a.length - suf; i < a.length; i++) ops.push({ t: ' ', s: a[i] });
  return ops;
}

interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

export function hunks(oldText: string, newText: string, context = 3): Hunk[] {
  const ops = diffLines(oldText.split('\n'), newText.split('\n'));
  const out: Hunk[] = [];
  let i = 0;
  let oldNo = 1;
  let newNo = 1;
  const posOld: number[] = [];
  const posNew: number[] = [];
  for (const op of ops) {
    posOld.push(oldNo);
    posNew.push(newNo);
    if (op.t !== '+') oldNo++;
    if (op.t !== '-') newNo++;
  }
  while (i < ops.length) {
    if (ops[i].t === ' ') {
      i++;
      continue;
    }
    const start = Math.max(0, i - context);
    let end = i;
    // extend while changes are within 2*context of each other
    for (;;) {
      while (end < ops.length && ops[end].t !== ' ') end++;
      let j = end;
      while (j < ops.length && ops[j].t === ' ' && j - end < 2 * context) j++;
      if (j < ops.length && ops[j].t !== ' ' && j - end <= 2 * context) {
        end = j;
        continue;
      }
      break;
    }
    const stop = Math.min(ops.length, end + context);
    const slice = ops.slice(start, stop);
    const h: Hunk = {
      oldStart: posOld[start],
      oldLines: slice.filter((o) => o.t !== '+').length,
      newStart: posNew[start],
      newLines: slice.filter((o) => o.t !== '-').length,
      lines: slice.map((o) => o.t + o.s),
    };
    out.push(h);
    i = stop;
  }
  return out;
}

export function diffCounts(oldText: string, newText: string): { added: number; removed: number } {
  const ops = diffLines(oldText.split('\n'), newText.split('\n'));
  return { added: ops.filter((o) => o.t === '+').length, removed: ops.filter((o) => o.t === '-').length };
}
