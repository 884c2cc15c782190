import { monthOf } from '../../src/features/analytics/period.js';
import { DistinctVisitors } from '../../src/features/analytics/visitor-sets.js';
import { newSetRevision } from '../../src/features/analytics/visitor-sets.repository.js';
import { getOrCreate } from '../../src/lib/maps.js';

/** The key columns (before the day) of scope_day_visitors rows ([environment, scope_id, day, visitors, revision]). */
export const SCOPE_MONTHS = 2;
/** The key columns of tag_day_visitors rows ([tag_id, day, visitors]). */
export const TAG_MONTHS = 1;

/**
 * The month sets (scope_month_visitors, tag_month_visitors) the seal job would have built from
 * the generated day sets: a closed month's union once the days move on to the next month, and
 * for the month still open a stale, empty row, as the job leaves it until the month is over.
 */
export class MonthSets {
  private month: string | undefined;
  private readonly sets = new Map<string, DistinctVisitors>();

  /** `keyColumns`: SCOPE_MONTHS or TAG_MONTHS. */
  constructor(private readonly keyColumns: number) {}

  /** Takes a day's day-set rows; returns the rows of the month it closes, if the day is the first of another month. */
  addDay(day: string, daySets: unknown[][]): unknown[][] {
    let closed: unknown[][] = [];
    if (monthOf(day) !== this.month) {
      if (this.month !== undefined) closed = this.rows(true);
      this.sets.clear();
      this.month = monthOf(day);
    }
    const { keyColumns } = this;
    for (const row of daySets)
      getOrCreate(this.sets, row.slice(0, keyColumns).map(String).join('|'), () => new DistinctVisitors()).addSet(
        row[keyColumns + 1] as string,
      );
    return closed;
  }

  /** The rows of the month still open after the last day. */
  openMonthRows(): unknown[][] {
    return this.rows(false);
  }

  private rows(closed: boolean): unknown[][] {
    return [...this.sets]
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([key, visitors]) => [...key.split('|'), this.month, closed ? visitors.toMonthSet() : '', closed ? 0 : 1, newSetRevision()]);
  }
}
