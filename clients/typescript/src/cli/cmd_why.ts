/** `switchyard why <session> [--turn N]`: the decision of one turn, replayed from the trace. */
import { replayTurns } from "../decision.ts";
import type { SessionKey } from "../session_key.ts";
import type { Context } from "./context.ts";
import { openTrace, readTrace } from "./trace_events.ts";
import { whyData, whyText } from "./why_text.ts";

export async function why(
  ctx: Context,
  id: string,
  o: { turn?: number; json?: boolean; key?: SessionKey },
): Promise<void> {
  const events = await openTrace(await readTrace(ctx.client, id), o.key);
  // Turns are the model invocations that chose a model, oldest first.
  const turns = replayTurns(events).filter((t) => t.choices.length > 0);
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
      ? `${JSON.stringify(whyData(turn, place, turns.length), null, 2)}\n`
      : whyText(turn, place, turns.length),
  );
}
