import { monthOf } from '../../src/features/analytics/period.js';
import { DistinctVisitors } from '../../src/features/analytics/visitor-sets.js';
import { newSetRevision } from '../../src/features/analytics/visitor-sets.repository.js';
import { getOrCreate } from '../../src/lib/maps.js';

/**
 * The scope month sets (scope_month_visitors) the seal job would have built from the generated
 * scope-day sets: a closed month's union once the days move on to the next month, and for the
 * month still open a stale, empty row, as the job leaves it until the month is over.
 */
export class ScopeMonthSets {
  private month: string | undefined;
  private readonly scopes = new Map<string, DistinctVisitors>();

  /**
   * Takes a day's scope_day_visitors rows ([environment, scope_id, day, visitors]); returns the
   * rows of the month it closes, if the day is the first of another month.
   */
  addDay(day: string, scopeDaySets: unknown[][]): unknown[][] {
    let closed: unknown[][] = [];
    if (monthOf(day) !== this.month) {
      if (this.month !== undefined) closed = this.rows(true);
      this.scopes.clear();
      this.month = monthOf(day);
    }
    for (const [environment, scopeId, , visitors] of scopeDaySets)
      getOrCreate(this.scopes, `${String(environment)}|${String(scopeId)}`, () => new DistinctVisitors()).addSet(visitors as string);
    return closed;
  }

  /** The rows of the month still open after the last day. */
  openMonthRows(): unknown[][] {
    return this.rows(false);
  }

  private rows(closed: boolean): unknown[][] {
    return [...this.scopes]
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([key, visitors]) => [...key.split('|'), this.month, closed ? visitors.toMonthSet() : '', closed ? 0 : 1, newSetRevision()]);
  }
}
