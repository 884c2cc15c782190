import { monthOf } from '../../src/features/analytics/period.js';
import { DistinctVisitors } from '../../src/features/analytics/visitor-sets.js';
import { newSetRevision } from '../../src/features/analytics/visitor-sets.repository.js';
import { getOrCreate } from '../../src/lib/maps.js';

/** Where a kind of month set finds its key and its visitors in a day set's row. */
interface MonthSetShape {
  /** The key columns (before the day) of a day set's row. */
  keyColumns: number;
  /** Whether the month set's row ends with a revision (scope_month_visitors, migration 0031). */
  revision: boolean;
}

/** scope_day_visitors rows ([environment, scope_id, day, visitors, revision]) into scope_month_visitors. */
export const SCOPE_MONTHS: MonthSetShape = { keyColumns: 2, revision: true };
/** tag_day_visitors rows ([tag_id, day, visitors]) into tag_month_visitors. */
export const TAG_MONTHS: MonthSetShape = { keyColumns: 1, revision: false };

/**
 * The month sets (scope_month_visitors, tag_month_visitors) the seal job would have built from
 * the generated day sets: a closed month's union once the days move on to the next month, and
 * for the month still open a stale, empty row, as the job leaves it until the month is over.
 */
export class MonthSets {
  private month: string | undefined;
  private readonly sets = new Map<string, DistinctVisitors>();

  constructor(private readonly shape: MonthSetShape) {}

  /** Takes a day's day-set rows; returns the rows of the month it closes, if the day is the first of another month. */
  addDay(day: string, daySets: unknown[][]): unknown[][] {
    let closed: unknown[][] = [];
    if (monthOf(day) !== this.month) {
      if (this.month !== undefined) closed = this.rows(true);
      this.sets.clear();
      this.month = monthOf(day);
    }
    const { keyColumns } = this.shape;
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
      .map(([key, visitors]) => [
        ...key.split('|'),
        this.month,
        closed ? visitors.toMonthSet() : '',
        closed ? 0 : 1,
        ...(this.shape.revision ? [newSetRevision()] : []),
      ]);
  }
}
