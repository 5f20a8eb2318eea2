import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { uuidv7 } from "../../src/platform/ids.ts";
import type { Db } from "../../src/store/db.ts";
import { HistoryCache } from "../../src/store/history_cache.ts";
import { migrate } from "../../src/store/migrate.ts";
import {
  claimForExecute,
  type ExecuteClaim,
  executeClaimer,
  type ExecuteClaimRequest,
} from "../../src/store/run_admission.ts";
import { findLiveRun } from "../../src/store/runs.ts";
import { insertToken } from "../../src/store/tokens.ts";
import { UNSYNCED_COMMIT } from "../../src/store/unsynced_commit.ts";
import { storesUnderTest } from "../support/databases.ts";
import { promptClaim } from "../support/prompt_claim.ts";
import { newSession } from "../support/turn_end.ts";

const T0 = new Date("2026-03-01T10:00:00.000Z");

/** A plaintext turn's claim: its prompt, a trace event of it, and the reading. */
function turnClaim(
  session: { id: string; userId: string },
  text: string,
  cache = new HistoryCache(),
): ExecuteClaimRequest {
  return { ...promptClaim(session.id, text, T0), read: { userId: session.userId, cache } };
}

type Claimed = Extract<ExecuteClaim, { kind: "claimed" }>;

function claimed(c: ExecuteClaim): Claimed {
  assert.equal(c.kind, "claimed");
  return c as Claimed;
}

/** The transaction that wrote each run. */
async function writers(db: Db, runIds: string[]): Promise<string[]> {
  const rows = await db.query<{ id: string; x: string }>(
    "SELECT id, xmin::text AS x FROM runs WHERE id = ANY ($1::uuid[])",
    [runIds],
  );
  return runIds.map((id) => rows.find((r) => r.id === id)!.x);
}

for (const store of storesUnderTest(process.env)) {
  describe(`batched execute claims on ${store.name}`, () => {
    let db: Db;
    let opened: Awaited<ReturnType<typeof store.open>>;
    before(async () => {
      opened = await store.open();
      db = opened.db;
      await migrate(db);
    });
    after(() => opened.dispose());

    test("claims of different sessions that wait for the one in flight share a transaction", async () => {
      const claimer = executeClaimer(db);
      const sessions = await Promise.all([1, 2, 3, 4, 5].map(() => newSession(db, T0)));
      const results = (await Promise.all(
        sessions.map((s, k) => claimer.claim(turnClaim(s, `prompt ${k}`))),
      )).map(claimed);
      const xs = await writers(db, results.map((r) => r.run.id));
      // The first went alone; the other four waited for it and went together.
      assert.notEqual(xs[0], xs[1]);
      assert.deepEqual(new Set(xs.slice(1)).size, 1);
      // Each got its own answer: its run, its prompt's seq, its reading.
      results.forEach((r, k) => {
        assert.equal(r.run.session_id, sessions[k].id);
        assert.deepEqual(r.messageSeqs, [1]);
        assert.deepEqual(r.reading?.history, []);
      });
      const traced = await db.query<{ session_id: string; seq: number }>(
        `SELECT session_id, (payload -> 'plaintext' ->> 'seq')::int AS seq FROM trace_events
         WHERE session_id = ANY ($1::uuid[])`,
        [sessions.map((s) => s.id)],
      );
      assert.equal(traced.length, 5);
      assert.ok(traced.every((t) => t.seq === 1));
    });

    test("claims that check their token, in one batch: each refused or taken as alone, a refusal writing nothing", async () => {
      const claimer = executeClaimer(db);
      const [good, revoked, expired, wrong, foreign, sealed] = await Promise.all(
        [1, 2, 3, 4, 5, 6].map(() => newSession(db, T0)),
      );
      await db.query("UPDATE sessions SET key_id = 'k1' WHERE id = $1", [sealed.id]);
      const token = async (s: { userId: string }, expiresAt = new Date(T0.getTime() + 60_000)) => {
        const id = uuidv7();
        await insertToken(db, { id, userId: s.userId, secretHash: `h-${id}`, now: T0, expiresAt });
        return { tokenId: id, secretHash: `h-${id}`, userId: s.userId };
      };
      const auths = [
        await token(good),
        await token(revoked),
        await token(expired, T0),
        { ...(await token(wrong)), secretHash: "another" },
        await token(good),
        await token(sealed),
      ];
      await db.query("UPDATE tokens SET revoked_at = $2 WHERE id = $1", [auths[1].tokenId, T0]);
      const sessions = [good, revoked, expired, wrong, foreign, sealed];
      // A claim alone first, so the next ones wait for it and go in one batch.
      const [_, ...answers] = await Promise.all([
        claimer.claim(turnClaim(await newSession(db, T0), "first")),
        ...sessions.map((s, k) => claimer.claim({ ...turnClaim(s, `p${k}`), auth: auths[k] })),
      ]);
      claimed(answers[0]);
      assert.deepEqual(
        answers.slice(1).map((a) => a.kind === "refused" ? a.reason : a.kind),
        ["token_revoked", "token_expired", "invalid_token", "session", "session"],
      );
      const runs = await db.query<{ session_id: string }>(
        "SELECT session_id FROM runs WHERE session_id = ANY ($1::uuid[])",
        [sessions.map((s) => s.id)],
      );
      assert.deepEqual(runs.map((r) => r.session_id), [good.id]);
      const written = await db.query<{ n: number }>(
        `SELECT (SELECT count(*)::int FROM messages WHERE session_id = ANY ($1::uuid[]))
              + (SELECT count(*)::int FROM trace_events WHERE session_id = ANY ($1::uuid[]))
              + (SELECT coalesce(sum(last_message_seq), 0)::int FROM sessions
                 WHERE id = ANY ($1::uuid[])) AS n`,
        [sessions.slice(1).map((s) => s.id)],
      );
      assert.equal(written[0].n, 0, "a refused claim writes nothing");
    });

    test("a batch answers each claim as alone: history, a supersede, a refusal, no records", async () => {
      const claimer = executeClaimer(db);
      const [first, told, paused, running, bare] = await Promise.all(
        [1, 2, 3, 4, 5].map(() => newSession(db, T0)),
      );
      const cache = new HistoryCache();
      const earlier = claimed(await claimForExecute(db, turnClaim(told, "m1", cache)));
      await db.query("UPDATE runs SET state = 'idle' WHERE id = $1", [earlier.run.id]);
      const before = claimed(await claimForExecute(db, turnClaim(paused, "p")));
      await db.query(
        `UPDATE runs SET state = 'awaiting_client', pause = '{"kind":"approval"}' WHERE id = $1`,
        [before.run.id],
      );
      const inFlight = claimed(await claimForExecute(db, turnClaim(running, "r")));
      const [alone, ...batch] = await Promise.all([
        claimer.claim(turnClaim(first, "alone")),
        claimer.claim(turnClaim(told, "m2", cache)),
        claimer.claim(turnClaim(paused, "p2")),
        claimer.claim(turnClaim(running, "r2")),
        claimer.claim({
          sessionId: bare.id,
          runId: uuidv7(),
          turnId: uuidv7(),
          instance: "i1",
          now: T0,
        }),
      ]);
      claimed(alone);
      const [second, superseding, refused, plain] = batch;
      const s = claimed(second);
      assert.deepEqual(s.messageSeqs, [2]);
      assert.deepEqual(s.reading?.history.map((m) => m.content), [{ plaintext: "m1" }]);
      const sup = claimed(superseding);
      assert.equal(sup.superseded?.id, before.run.id);
      assert.equal(sup.superseded?.state, "awaiting_client");
      assert.deepEqual(sup.messageSeqs, [2]);
      assert.equal(refused.kind, "in_flight");
      assert.equal(refused.kind === "in_flight" ? refused.run?.id : null, inFlight.run.id);
      const p = claimed(plain);
      assert.deepEqual(p.messageSeqs, []);
      assert.equal(p.reading, undefined);
      const xs = await writers(db, [s.run.id, sup.run.id, p.run.id]);
      assert.equal(new Set(xs).size, 1);
      const counters = await db.query<{ id: string; n: number }>(
        "SELECT id, last_message_seq AS n FROM sessions WHERE id = ANY ($1::uuid[])",
        [[told.id, paused.id, running.id, bare.id]],
      );
      const counter = (id: string) => counters.find((c) => c.id === id)!.n;
      assert.deepEqual(
        [counter(told.id), counter(paused.id), counter(running.id), counter(bare.id)],
        [2, 2, 1, 0],
      );
    });

    test("two claims of one session in one batch: exactly one wins, the other is in flight", async () => {
      const claimer = executeClaimer(db);
      const first = await newSession(db, T0);
      const contested = await newSession(db, T0);
      const [alone, a, b] = await Promise.all([
        claimer.claim(turnClaim(first, "alone")),
        claimer.claim(turnClaim(contested, "a")),
        claimer.claim(turnClaim(contested, "b")),
      ]);
      claimed(alone);
      const outcomes = [a, b].map((c) => c.kind).sort();
      assert.deepEqual(outcomes, ["claimed", "in_flight"]);
      const winner = (a.kind === "claimed" ? a : b) as Claimed;
      const loser = a.kind === "claimed" ? b : a;
      assert.equal(loser.kind === "in_flight" ? loser.run?.id : null, winner.run.id);
      const [xa, xb] = await writers(db, [winner.run.id, (alone as Claimed).run.id]);
      assert.notEqual(xa, xb);
      // The refused claim stored nothing and left the session's counter as it was.
      const messages = await db.query<{ seq: number }>(
        "SELECT seq FROM messages WHERE session_id = $1 ORDER BY seq",
        [contested.id],
      );
      assert.deepEqual(messages.map((m) => m.seq), [1]);
      const [counter] = await db.query<{ n: number }>(
        "SELECT last_message_seq AS n FROM sessions WHERE id = $1",
        [contested.id],
      );
      assert.equal(counter.n, 1);
    });

    test("a claim that fails fails alone: the rest of its batch is claimed", async () => {
      const claimer = executeClaimer(db);
      const sessions = await Promise.all([1, 2, 3].map(() => newSession(db, T0)));
      const gone = { id: uuidv7(), userId: sessions[0].userId };
      const settled = await Promise.allSettled([
        claimer.claim(turnClaim(sessions[0], "alone")),
        claimer.claim(turnClaim(sessions[1], "x")),
        claimer.claim(turnClaim(gone, "y")),
        claimer.claim(turnClaim(sessions[2], "z")),
      ]);
      assert.deepEqual(settled.map((s) => s.status), [
        "fulfilled",
        "fulfilled",
        "rejected",
        "fulfilled",
      ]);
      const runs = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM runs WHERE session_id = $1",
        [gone.id],
      );
      assert.equal(runs[0].n, 0);
    });

    test("a refused claim gives its messages' seqs back: the next prompt follows the last one", async () => {
      const session = await newSession(db, T0);
      const cache = new HistoryCache();
      const one = claimed(await claimForExecute(db, turnClaim(session, "one", cache)));
      const refused = await claimForExecute(db, turnClaim(session, "two", cache));
      assert.equal(refused.kind, "in_flight");
      await db.query("UPDATE runs SET state = 'idle' WHERE id = $1", [one.run.id]);
      const three = claimed(await claimForExecute(db, turnClaim(session, "three", cache)));
      assert.deepEqual(three.messageSeqs, [2]);
      assert.deepEqual(three.reading?.history.map((m) => m.content), [{ plaintext: "one" }]);
    });

    if (store.name === "PostgreSQL") {
      test(
        "a batch locks its sessions before any run: a write holding one of them and moving another's run does not deadlock it",
        async () => {
          const claimer = executeClaimer(db);
          const other = await opened.reopen!();
          const [lone, s1, s2] = (await Promise.all([1, 2, 3].map(() => newSession(db, T0))))
            .sort((a, b) => a.id < b.id ? -1 : 1);
          const running = claimed(await claimForExecute(db, turnClaim(s1, "in flight")));
          let holding!: () => void;
          const held = new Promise<void>((resolve) => holding = resolve);
          let release!: () => void;
          const gate = new Promise<void>((resolve) => release = resolve);
          // As a group write does: the session of its records first, then a run it moves.
          const write = other.transaction(async (tx) => {
            await tx.query("UPDATE sessions SET title = title WHERE id = $1", [s2.id]);
            holding();
            await gate;
            await tx.query("UPDATE runs SET state = 'idle' WHERE id = $1", [running.run.id]);
          });
          await held;
          const claims = Promise.all([
            claimer.claim(turnClaim(lone, "alone")),
            claimer.claim(turnClaim(s1, "next")),
            claimer.claim(turnClaim(s2, "first")),
          ]);
          // The batch of s1 and s2 is waiting for s2's row by now.
          await new Promise((resolve) => setTimeout(resolve, 300));
          release();
          await write;
          const [, next, first] = await claims;
          assert.equal(claimed(next).run.session_id, s1.id);
          assert.equal(claimed(first).run.session_id, s2.id);
        },
      );
    }

    test("a claim on a session that is not there fails as the session's key did", async () => {
      const session = await newSession(db, T0);
      await assert.rejects(
        claimForExecute(db, { ...turnClaim(session, "x"), sessionId: uuidv7() }),
      );
      await assert.rejects(claimForExecute(db, {
        sessionId: uuidv7(),
        runId: uuidv7(),
        turnId: uuidv7(),
        instance: "i1",
        now: T0,
      }));
    });

    test("a claim's answer leaves out the run input it was sent; the run it hands back has it as stored", async () => {
      const answers: unknown[] = [];
      const watched: Db = {
        ...db,
        query: async <T>(text: string, params?: readonly unknown[]) => {
          const rows = await db.query<T>(text, params);
          answers.push(...rows);
          return rows;
        },
      };
      const session = await newSession(db, T0);
      const runInput = { text: "x", conversation: [{ role: "user", content: "y".repeat(2000) }] };
      const { run } = claimed(
        await claimForExecute(watched, { ...turnClaim(session, "x"), runInput }),
      );
      const [answer] = answers as { c: { run: Record<string, unknown> } }[];
      assert.equal("run_input" in answer.c.run, false, "the answer carried the run input back");
      assert.equal(answer.c.run.id, run.id);
      assert.deepEqual(run.run_input, runInput);
      assert.deepEqual(await findLiveRun(db, session.id), run);
    });

    test("a claim, alone or batched, commits unsynced, and the store flushes it by itself", async () => {
      assert.equal(db.flushesUnsyncedCommits, true);
      const sent: string[] = [];
      const watched: Db = {
        ...db,
        query: (text, params) => (sent.push(text), db.query(text, params)),
      };
      const claimer = executeClaimer(watched);
      const sessions = await Promise.all([1, 2, 3].map(() => newSession(db, T0)));
      for (const c of await Promise.all(sessions.map((s) => claimer.claim(turnClaim(s, "x"))))) {
        claimed(c);
      }
      assert.equal(sent.length, 2, "one claim alone, then the two that waited for it");
      for (const text of sent) assert.ok(text.includes(UNSYNCED_COMMIT), text);
      if (store.name === "PGlite") {
        const [wal] = await db.query<{ behind: boolean }>(
          "SELECT pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn() AS behind",
        );
        assert.equal(wal.behind, false, "the claims' WAL was left unflushed");
      }
    });
  });
}
