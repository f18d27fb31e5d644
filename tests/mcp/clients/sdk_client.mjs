// A tool caller on the official TypeScript MCP SDK (tests/mcp/real_clients.py runs it):
//
//     node sdk_client.mjs NODE_MODULES typescript-1|typescript-2
//
// typescript-1: @modelcontextprotocol/sdk 1.x, the initialize handshake (2025-11-25);
// typescript-2: @modelcontextprotocol/client 2.x pinned to 2026-07-28 (connect probes
// server/discover at that revision and fails rather than fall back).
// The commands and answers are sdk_client.py's (one JSON line each on stdin and stdout).
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

const [nodeModules, flavour] = process.argv.slice(2);
const require = createRequire(join(nodeModules, 'noop.js'));
const MODERN = '2026-07-28';
const CHANGE_WAIT_MS = 60000; // a notification the list says is due; bounded so a bug fails

function sdk() {
  if (flavour === 'typescript-1') {
    const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const { ToolListChangedNotificationSchema } = require('@modelcontextprotocol/sdk/types.js');
    return { Client, StreamableHTTPClientTransport, changed: ToolListChangedNotificationSchema, options: {} };
  }
  const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');
  return {
    Client, StreamableHTTPClientTransport, changed: 'notifications/tools/list_changed',
    options: { versionNegotiation: { mode: { pin: MODERN } } },
  };
}

async function play(command) {
  const { Client, StreamableHTTPClientTransport, changed, options } = sdk();
  let changes = 0;
  let wake = null;
  const client = new Client({ name: `a2abench-test-${flavour}`, version: '1.0.0' }, options);
  client.setNotificationHandler(changed, () => {
    changes += 1;
    if (wake) wake();
  });
  const transport = new StreamableHTTPClientTransport(new URL(command.url), {
    requestInit: { headers: command.headers },
  });
  await client.connect(transport);
  const listChanged = Boolean(client.getServerCapabilities()?.tools?.listChanged);
  const modern = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion;
  const subscription = listChanged && modern === MODERN
    ? await client.listen({ toolsListChanged: true }) : null;
  const names = async () => (await client.listTools()).tools.map((t) => t.name);
  const calls = [];
  let seen = changes;
  let current = await names();
  const lists = [current];
  try {
    for (let [name, args] of command.calls) {
      const target = args.agent_tool_name;
      if (command.alias && name === 'call_discoverable_agent_tool' && current.includes(target)) {
        name = target;
        args = JSON.parse(args.arguments || '{}');
      }
      let result;
      try {
        result = await client.callTool({ name, arguments: args });
      } catch (error) {
        calls.push({ name, arguments: args, error: String(error?.message ?? error) });
        continue;
      }
      const text = result.content.map((c) => c.text ?? '').join('');
      calls.push({ name, arguments: args, text, is_error: Boolean(result.isError) });
      if (listChanged && name === 'unlock_discoverable_agent_tool') {
        const after = await names(); // a stateless agent's way: the next list shows it
        if (JSON.stringify(after) !== JSON.stringify(current)) {
          await waitForChange(() => changes > seen, (f) => { wake = f; });
          seen = changes;
          current = after;
          lists.push(after);
        }
      }
    }
  } finally {
    if (subscription) await subscription.close();
    if (modern !== MODERN && transport.sessionId) await transport.terminateSession();
    await client.close();
  }
  return {
    protocol: modern, list_changed: listChanged, lists, changes, calls,
  };
}

function waitForChange(done, setWake) {
  return new Promise((resolve, reject) => {
    if (done()) return resolve();
    const timer = setTimeout(() => reject(new Error('no tools/list_changed notification')),
      CHANGE_WAIT_MS);
    setWake(() => {
      if (done()) {
        clearTimeout(timer);
        setWake(null);
        resolve();
      }
    });
  });
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const answer = await play(JSON.parse(line));
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
