/**
 * Two sessions of a real agent alive at once in one project (test/agents/*-recall.test.ts): the
 * fake answers each by its prompt, and A's first answer is held until B has run whole, so while
 * A's model waits, B starts, calls and ends, and A goes on only after B's transcript is the
 * project's newest.
 */
import type { FakeMessageReply, FakeProvider, FakeReply } from "./fake-provider.js";

/** One side: its prompt, the fake's first answer to it, the answer to every later request. */
export interface OverlappingSide {
  readonly prompt: string;
  readonly first: FakeMessageReply;
  readonly later: FakeReply;
  /** Runs the agent with `prompt`; resolves with the session id it printed. */
  readonly run: (prompt: string) => Promise<string>;
}

/** What each side's requests carried (their bodies, in order) and the session each ran. */
export interface OverlappingRuns {
  readonly a: { readonly session: string; readonly bodies: unknown[] };
  readonly b: { readonly session: string; readonly bodies: unknown[] };
  /** How many requests A had sent when B ended: 1 proves A was held through B. */
  readonly aRequestsWhileB: number;
}

export async function runOverlapping(
  fake: FakeProvider,
  a: OverlappingSide,
  b: OverlappingSide,
): Promise<OverlappingRuns> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  fake.addRoute({
    bodyIncludes: a.prompt,
    times: 1,
    reply: { ...a.first, holdAfterEvents: 1, release: held },
  });
  fake.addRoute({ bodyIncludes: a.prompt, reply: a.later });
  fake.addRoute({ bodyIncludes: b.prompt, times: 1, reply: b.first });
  fake.addRoute({ bodyIncludes: b.prompt, reply: b.later });
  const bodiesWith = (text: string) =>
    fake.requests.map((request) => request.body).filter((body) => JSON.stringify(body).includes(text));
  const runA = a.run(a.prompt);
  try {
    for (let waited = 0; bodiesWith(a.prompt).length === 0; waited += 50) {
      if (waited > 60_000) throw new Error("the first session sent no request");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const sessionB = await b.run(b.prompt);
    const aRequestsWhileB = bodiesWith(a.prompt).length;
    release();
    const sessionA = await runA;
    return {
      a: { session: sessionA, bodies: bodiesWith(a.prompt) },
      b: { session: sessionB, bodies: bodiesWith(b.prompt) },
      aRequestsWhileB,
    };
  } finally {
    release();
    await runA.catch(() => undefined);
  }
}
