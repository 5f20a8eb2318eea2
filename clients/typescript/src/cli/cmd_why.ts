/** `switchyard why <session> [--turn N]`: one turn (a prompt and what answered it), replayed from the trace. */
import type { SessionKey } from "../session_key.ts";
import { callPerTurn, sessionTurns } from "../turns.ts";
import type { Context } from "./context.ts";
import { openTrace, readTrace } from "./trace_events.ts";
import { whyData, whyText } from "./why_text.ts";

export async function why(
  ctx: Context,
  id: string,
  o: { turn?: number; json?: boolean; key?: SessionKey },
): Promise<void> {
  const [detail, sealed] = await Promise.all([
    ctx.client.session(id).get(),
    readTrace(ctx.client, id),
  ]);
  const events = await openTrace(sealed, o.key);
  // Turns are prompts, oldest first: `--turn 2` is the second prompt, however many calls it took.
  const turns = sessionTurns(events, { callPerTurn: callPerTurn(detail) });
  if (turns.length === 0) {
    throw new Error(`session ${id} has no turn with a routing decision yet`);
  }
  const place = o.turn ?? turns.length;
  if (place < 1 || place > turns.length) {
    throw new Error(
      `--turn expects 1 to ${turns.length} (the session has ${turns.length} turns), got ${place}`,
    );
  }
  const turn = turns[place - 1];
  ctx.term.out(
    o.json
      ? `${JSON.stringify(whyData(turn, turns.length), null, 2)}\n`
      : whyText(turn, turns.length),
  );
}
