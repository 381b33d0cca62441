// LangGraph's side of bench/journal.sh: the same 3-step graph as bench/journal_bench.cpp (a stand-in model that
// answers at once, an echo tool, a template), run without a checkpointer and with its SQLite checkpointer in each
// durability mode; the cost per step of a 100-node chain; the checkpoint bytes per step; and the time to pick up a
// thread of 100 finished steps again. Prints one JSON object.
import { StateGraph, Annotation, START, END } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "langgraph-bench-"));

function threeSteps() {
  const State = Annotation.Root({ topic: Annotation(), drafted: Annotation(), sent: Annotation(), noted: Annotation() });
  return new StateGraph(State)
    .addNode("draft", async (s) => ({ drafted: "Refunds take five days." }))
    .addNode("send", async (s) => ({ sent: s.drafted }))
    .addNode("note", async (s) => ({ noted: `sent: ${s.sent}` }))
    .addEdge(START, "draft").addEdge("draft", "send").addEdge("send", "note").addEdge("note", END);
}

function chain(n) {
  const State = Annotation.Root({ last: Annotation() });
  let g = new StateGraph(State);
  for (let i = 0; i < n; i++) g = g.addNode(`s${i}`, async (s) => ({ last: "ok" }));
  g = g.addEdge(START, "s0");
  for (let i = 1; i < n; i++) g = g.addEdge(`s${i - 1}`, `s${i}`);
  return g.addEdge(`s${n - 1}`, END);
}

async function medianUs(rounds, fn) {
  const t = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    await fn(r);
    t.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  t.sort((a, b) => a - b);
  return t[Math.floor(t.length / 2)];
}

const out = { three: {}, chain_per_step_us: {}, };
let thread = 0;
const saver = SqliteSaver.fromConnString(path.join(dir, "checkpoints.db"));
const bare3 = threeSteps().compile();
const saved3 = threeSteps().compile({ checkpointer: saver });
for (let i = 0; i < 50; i++) await bare3.invoke({ topic: "refunds" });
out.three.none = await medianUs(501, () => bare3.invoke({ topic: "refunds" }));
for (const mode of ["exit", "async", "sync"]) {
  const run = () => saved3.invoke({ topic: "refunds" }, { configurable: { thread_id: `t${++thread}` }, durability: mode });
  for (let i = 0; i < 50; i++) await run();
  out.three[mode] = await medianUs(501, run);
}

const n = 100;
const bareChain = chain(n).compile();
out.chain_per_step_us.none = (await medianUs(51, () => bareChain.invoke({ last: "" }, { recursionLimit: 1000 }))) / n;
const chainFile = path.join(dir, "chain.db");
const chainSaver = SqliteSaver.fromConnString(chainFile);
const savedChain = chain(n).compile({ checkpointer: chainSaver });
let last = "";
for (const mode of ["exit", "async", "sync"]) {
  out.chain_per_step_us[mode] = (await medianUs(51, async () => {
    last = `c${++thread}`;
    await savedChain.invoke({ last: "" }, { configurable: { thread_id: last }, durability: mode, recursionLimit: 1000 });
  })) / n;
}
// Bytes per step: a fresh file holding one thread of the chain, run in the default mode.
const oneFile = path.join(dir, "one.db");
const oneSaver = SqliteSaver.fromConnString(oneFile);
await chain(n).compile({ checkpointer: oneSaver }).invoke({ last: "" }, { configurable: { thread_id: "one" }, recursionLimit: 1000 });
const rows = oneSaver.db.prepare("SELECT sum(length(checkpoint) + length(metadata)) AS c FROM checkpoints").get().c +
             oneSaver.db.prepare("SELECT coalesce(sum(length(value)), 0) AS w FROM writes").get().w;
out.checkpoint_bytes_per_step = rows / n;
// A finished thread of 100 steps picked up again: its latest checkpoint read, nothing left to run.
const resumeGraph = chain(n).compile({ checkpointer: oneSaver });
out.resume_100_steps_ms = (await medianUs(51, () => resumeGraph.invoke(null, { configurable: { thread_id: "one" }, recursionLimit: 1000 }))) / 1000;
out.versions = {
  langgraph: JSON.parse(fs.readFileSync(new URL("./node_modules/@langchain/langgraph/package.json", import.meta.url))).version,
  checkpoint_sqlite: JSON.parse(fs.readFileSync(new URL("./node_modules/@langchain/langgraph-checkpoint-sqlite/package.json", import.meta.url))).version,
};
fs.rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(out));
