import Database from 'better-sqlite3';
import { decodeVisitorSet } from '/work/main/src/features/analytics/visitor-sets.ts';
const db = new Database(process.env.DATA_DIR + '/tagsvc.sqlite', { readonly: true });
const months = new Map<string, Set<number>>();
let daily = 0;
for (const row of db.prepare('select day, visitors from scope_day_visitors').iterate() as Iterable<{ day: string; visitors: string }>) {
  const nums = decodeVisitorSet(row.visitors);
  daily += nums.length;
  const m = row.day.slice(0, 7);
  let s = months.get(m); if (!s) months.set(m, (s = new Set()));
  for (const n of nums) s.add(n);
}
let monthly = 0; for (const s of months.values()) monthly += s.size;
console.log({ daily, monthly, months: months.size });
