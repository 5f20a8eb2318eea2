/**
 * PostgreSQL in single-user mode, as PGlite runs it, has no autovacuum: dead
 * rows left by updates and deletes are never reclaimed, statistics are never
 * refreshed, and transaction ids are never frozen. So the store does
 * autovacuum's job itself: it reads the statistics every so often and runs
 * `VACUUM (ANALYZE)` on a table past autovacuum's default thresholds, and
 * `VACUUM (FREEZE)` on a table whose oldest unfrozen transaction id grows old.
 * Each runs as one statement on the store's single connection, between
 * transactions (one_connection.ts): a turn waits for it, never the reverse.
 */
import type { Queryable } from "./db.ts";

export interface VacuumPolicy {
  /** How often the statistics are looked at. */
  everyMs: number;
  /** Vacuum past `deadRows + deadScale × rows` dead rows (autovacuum: 50 and 0.2). */
  deadRows: number;
  deadScale: number;
  /** Vacuum past `insertedRows + insertedScale × rows` rows inserted since (autovacuum: 1000, 0.2). */
  insertedRows: number;
  insertedScale: number;
  /** Analyze past `changedRows + changedScale × rows` rows changed since (autovacuum: 50, 0.1). */
  changedRows: number;
  changedScale: number;
  /**
   * Freeze a table whose `relfrozenxid` is older than this many transactions:
   * half of autovacuum's 200 million, and a tenth of the two billion at which
   * ids wrap around (single-user mode warns then, but does not stop).
   */
  freezeAge: number;
}

export const VACUUMS: VacuumPolicy = {
  everyMs: 30_000,
  deadRows: 50,
  deadScale: 0.2,
  insertedRows: 1000,
  insertedScale: 0.2,
  changedRows: 50,
  changedScale: 0.1,
  freezeAge: 100_000_000,
};

/** One table's maintenance, as planned from its statistics. */
export interface Maintenance {
  /** The table, quoted for SQL. */
  table: string;
  kind: "freeze" | "vacuum" | "analyze";
}

/** What was done, and for how long it held the connection. */
export interface MaintenanceDone extends Maintenance {
  ms: number;
}

interface TableStats {
  table: string;
  rows: number;
  dead: number;
  inserted: number;
  changed: number;
  xid_age: number;
}

/**
 * What the statistics call for: every table of the database whose transaction
 * ids grow old (system catalogs too), then the user tables past a threshold.
 */
export async function maintenanceDue(db: Queryable, policy: VacuumPolicy): Promise<Maintenance[]> {
  // A backend sends its counts at most once a second, after a statement: ask for them now.
  await db.query("SELECT pg_stat_force_next_flush()");
  const stats = await db.query<TableStats>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS "table",
            greatest(c.reltuples, coalesce(s.n_live_tup, 0))::float8 AS rows,
            coalesce(s.n_dead_tup, 0)::float8 AS dead,
            coalesce(s.n_ins_since_vacuum, 0)::float8 AS inserted,
            coalesce(s.n_mod_since_analyze, 0)::float8 AS changed,
            age(c.relfrozenxid)::float8 AS xid_age
     FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
     WHERE c.relkind IN ('r', 'm') AND c.relpersistence = 'p'
       AND (s.relid IS NOT NULL OR age(c.relfrozenxid) > $1)
     ORDER BY 1`,
    [policy.freezeAge],
  );
  const due: Maintenance[] = [];
  for (const s of stats) {
    const rows = Math.max(s.rows, 0);
    if (s.xid_age > policy.freezeAge) due.push({ table: s.table, kind: "freeze" });
    else if (
      s.dead > policy.deadRows + policy.deadScale * rows ||
      s.inserted > policy.insertedRows + policy.insertedScale * rows
    ) due.push({ table: s.table, kind: "vacuum" });
    else if (s.changed > policy.changedRows + policy.changedScale * rows) {
      due.push({ table: s.table, kind: "analyze" });
    }
  }
  return due;
}

const STATEMENTS: Record<Maintenance["kind"], string> = {
  // Without ANALYZE, which writes statistics: a pass over every catalog takes no transaction id.
  freeze: "VACUUM (FREEZE)",
  vacuum: "VACUUM (ANALYZE)",
  analyze: "ANALYZE",
};

/**
 * Runs what is due, one table at a time (a turn waits behind one table at
 * most), telling `observe` of each.
 */
export async function maintain(
  db: Queryable,
  policy: VacuumPolicy,
  observe: (done: MaintenanceDone) => void = () => {},
): Promise<MaintenanceDone[]> {
  const done: MaintenanceDone[] = [];
  for (const m of await maintenanceDue(db, policy)) {
    const t = performance.now();
    await db.exec(`${STATEMENTS[m.kind]} ${m.table}`);
    done.push({ ...m, ms: performance.now() - t });
    observe(done.at(-1)!);
  }
  return done;
}

/**
 * Checks every `policy.everyMs` until stopped; never holds the process open.
 * `observe` hears of each table maintained (the service logs it).
 */
export function keepVacuuming(
  db: Queryable,
  policy: VacuumPolicy,
  observe: (done: MaintenanceDone) => void = () => {},
): { stop(): void } {
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      await maintain(db, policy, observe);
    } catch {
      // The next tick looks again; a store that fails here fails the requests too, and they are logged.
    } finally {
      busy = false;
    }
  }, policy.everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
