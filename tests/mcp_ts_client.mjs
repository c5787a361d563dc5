// The official TypeScript SDK client (@modelcontextprotocol/sdk, pinned in .ci/node) driving
// one MCP stdio server through a plan; tests/test_mcp_clients.py reads its report.
//
//   node tests/mcp_ts_client.mjs [--plan FILE] -- COMMAND [ARG...]
//
// The server is COMMAND started by the SDK's StdioClientTransport (in this process's working
// directory, with the SDK's default environment). The plan is JSON, from FILE or stdin:
//
//   {"elicitation": true,          // declare {elicitation: {}} and answer questions
//    "calls": [{"label": "...", "tool": "...", "arguments": {...},
//               "elicit": {"action": "accept" | "decline" | "cancel", "content": {...}},
//               "paginate": {"max_pages": 50, "tamper": true}}]}
//
// Every call goes through client.callTool, which checks a result's structuredContent against
// the tool's outputSchema from tools/list (and refuses the result with McpError -32602 when
// it does not match). "elicit" answers the questions the server asks during that call (a
// question during a call without one is answered "cancel" and counted as unexpected);
// "paginate" repeats the call with the previous result's next_cursor until it is null (at
// most max_pages calls), then, with "tamper", calls once more with the first page's cursor
// altered in one character.
//
// The report, one JSON document on stdout: {"protocolVersion", "serverInfo", "tools",
// "calls": [{"label", "tool", "arguments", "page", "tampered", "asked", "unexpected",
// "outcome": "result" | "thrown", "result": {...} | "error": {"name", "code", "message"}}]}.
// Exit status 0 when the plan ran (whatever its calls returned), 2 when it could not.

import { readFileSync } from "node:fs";

// The pinned SDK by its path from this file: a bare "@modelcontextprotocol/sdk/..." would be
// looked up in node_modules folders above tests/, where there is none, and NODE_PATH does
// not apply to ES modules. The SDK's own imports resolve from where it is installed.
import { Client } from "../.ci/node/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js";
import { StdioClientTransport } from "../.ci/node/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js";
import { ElicitRequestSchema } from "../.ci/node/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js";

function parseArgv(argv) {
  const separator = argv.indexOf("--");
  if (separator === -1 || separator === argv.length - 1) {
    throw new Error("usage: node mcp_ts_client.mjs [--plan FILE] -- COMMAND [ARG...]");
  }
  const options = argv.slice(0, separator);
  const [command, ...args] = argv.slice(separator + 1);
  const at = options.indexOf("--plan");
  const planFile = at === -1 ? 0 : options[at + 1]; // 0: stdin
  return { command, args, plan: JSON.parse(readFileSync(planFile, "utf8")) };
}

/** The cursor with one character changed near its middle (a letter or digit, so that a
 * base64 payload or signature really changes). */
function tamper(cursor) {
  const middle = Math.floor(cursor.length / 2);
  for (let step = 0; step < cursor.length; step++) {
    const at = (middle + step) % cursor.length;
    if (/[A-Za-z0-9]/.test(cursor[at])) {
      const other = cursor[at] === "A" ? "B" : "A";
      return cursor.slice(0, at) + other + cursor.slice(at + 1);
    }
  }
  return `${cursor}A`;
}

function errorOf(thrown) {
  return {
    name: thrown?.name ?? typeof thrown,
    code: thrown?.code ?? null,
    message: thrown instanceof Error ? thrown.message : String(thrown),
  };
}

async function main() {
  const { command, args, plan } = parseArgv(process.argv.slice(2));
  const elicitation = plan.elicitation !== false;
  const client = new Client(
    { name: "tutorial-lib-ts-client-test", version: "0.0.0" },
    { capabilities: elicitation ? { elicitation: {} } : {} },
  );
  let current = null; // the record of the call in progress: its questions land there
  if (elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const { message, requestedSchema, mode } = request.params;
      const record = current ?? { asked: [], unexpected: 0, elicit: null };
      record.asked.push({ message, requestedSchema: requestedSchema ?? null, mode: mode ?? null });
      if (!record.elicit) {
        record.unexpected += 1;
        return { action: "cancel" };
      }
      const { action, content } = record.elicit;
      return action === "accept" ? { action, content: content ?? {} } : { action };
    });
  }
  const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
  let protocolVersion = null;
  // The client hands the negotiated version to transports that want it (HTTP ones do).
  transport.setProtocolVersion = (version) => {
    protocolVersion = version;
  };
  await client.connect(transport);
  const report = {
    protocolVersion,
    serverInfo: client.getServerVersion() ?? null,
    tools: [],
    calls: [],
  };
  try {
    report.tools = (await client.listTools()).tools; // also caches the output validators

    async function call(step, args, extra) {
      const record = {
        label: step.label ?? null,
        tool: step.tool,
        arguments: args,
        page: null,
        tampered: false,
        ...extra,
        asked: [],
        unexpected: 0,
        elicit: step.elicit ?? null,
      };
      current = record;
      try {
        const result = await client.callTool({ name: step.tool, arguments: args });
        record.outcome = "result";
        record.result = result;
      } catch (thrown) {
        record.outcome = "thrown";
        record.error = errorOf(thrown);
      } finally {
        current = null;
      }
      delete record.elicit;
      report.calls.push(record);
      return record;
    }

    for (const step of plan.calls) {
      const base = step.arguments ?? {};
      if (!step.paginate) {
        await call(step, base, {});
        continue;
      }
      const maxPages = step.paginate.max_pages ?? 50;
      let firstCursor = null;
      let args = base;
      for (let page = 1; page <= maxPages; page++) {
        const record = await call(step, args, { page });
        const next = record.result?.structuredContent?.next_cursor ?? null;
        if (record.outcome !== "result" || record.result.isError || next === null) {
          break;
        }
        firstCursor ??= next;
        args = { ...base, cursor: next };
      }
      if (step.paginate.tamper && firstCursor !== null) {
        await call(step, { ...base, cursor: tamper(firstCursor) }, { tampered: true });
      }
    }
  } finally {
    await client.close();
  }
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((thrown) => {
  process.stderr.write(`mcp_ts_client: ${thrown?.stack ?? thrown}\n`);
  process.exit(2);
});
