// A small MCP client on the official TypeScript SDK, for citelens's
// end-to-end test (cmd/citelens/mcp_e2e_test.go): it connects to
// `citelens mcp` over stdio or streamable HTTP, lists the tools, calls
// search and ask (collecting ask's progress notifications), reads every
// returned citation back with read by its byte range (search's hits also
// at version 1 of their document, and verified there), and prints what it
// saw as one JSON object. The SDK checks each structured result against
// the tool's output schema.
//
//   node client.mjs stdio COMMAND [ARG...]
//   node client.mjs http URL        (the token, if any, in E2E_TOKEN)
//
// E2E_QUERY and E2E_QUESTION are what to search for and ask; E2E_STRATEGY,
// when set, the strategy ask uses.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, ...rest] = process.argv.slice(2);
const out = { tools: [], hits: [], statements: [], progress: [], checked: 0, versionChecked: 0, verdicts: [], mismatches: [], clientErrors: [] };

function transport() {
  if (mode === "stdio") {
    return new StdioClientTransport({ command: target, args: rest, env: process.env, stderr: "inherit" });
  }
  const headers = process.env.E2E_TOKEN ? { Authorization: `Bearer ${process.env.E2E_TOKEN}` } : {};
  return new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers } });
}

// check reads a citation back by its byte range and compares the text.
async function check(client, c) {
  const r = await client.callTool({ name: "read", arguments: { document: c.document, start: c.start, end: c.end } });
  out.checked++;
  if (r.isError || r.structuredContent.text !== c.text) {
    out.mismatches.push({ citation: c, read: r.structuredContent ?? r.content });
  }
}

const client = new Client({ name: "citelens-e2e", version: "1.0.0" });
// Errors the SDK reports outside any call (a progress notification for a
// token it has forgotten, say), which some clients answer by dropping the
// connection.
client.onerror = (e) => out.clientErrors.push(String(e?.message ?? e));
try {
  await client.connect(transport());
  out.server = client.getServerVersion();
  out.tools = (await client.listTools()).tools.map((t) => t.name);

  const search = await client.callTool({ name: "search", arguments: { query: process.env.E2E_QUERY, k: 3 } });
  if (search.isError) throw new Error("search: " + JSON.stringify(search.content));
  out.hits = search.structuredContent.hits;
  for (const h of out.hits) await check(client, h);
  // read and verify take a version: a number from 1, or a version's ID.
  for (const h of out.hits) {
    const r = await client.callTool({ name: "read", arguments: { document: h.document, start: h.start, end: h.end, version: 1 } });
    out.versionChecked++;
    if (r.isError || r.structuredContent.text !== h.text) out.mismatches.push({ citation: h, version: 1, read: r.structuredContent ?? r.content });
    const v = await client.callTool({ name: "verify", arguments: { claim: h.text, citation: { ...h, version: h.document } } });
    out.verdicts.push(v.isError ? "error: " + JSON.stringify(v.content) : v.structuredContent.verdict);
  }

  const args = { question: process.env.E2E_QUESTION };
  if (process.env.E2E_STRATEGY) args.strategy = process.env.E2E_STRATEGY;
  const ask = await client.callTool({ name: "ask", arguments: args }, undefined, {
    onprogress: (p) => out.progress.push(p.message),
  });
  if (ask.isError) throw new Error("ask: " + JSON.stringify(ask.content));
  out.statements = ask.structuredContent.statements;
  out.strategy = ask.structuredContent.strategy;
  for (const s of out.statements) for (const c of s.citations) await check(client, c);
  await client.close();
} catch (err) {
  out.error = String(err?.message ?? err);
  out.code = err?.code;
  console.log(JSON.stringify(out));
  process.exit(3);
}
console.log(JSON.stringify(out));
