// What every client driver shares (the driver protocol, docs/clients.md): --describe, --run with
// one JSON object on stdin, one neutral JSON object on stdout, exit 0 whenever that object was
// printed (a library error is data), non-zero only when the driver itself failed.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROTOCOL = 1;
const STDIN_CAP = 8 * 1024 * 1024;   // one request body; a larger input is a driver failure
const MESSAGE_CAP = 4096;            // an error message is evidence, not a log

// The installed version of an npm package (from clients/node_modules).
export function packageVersion(name) {
  const here = dirname(fileURLToPath(import.meta.url));
  const file = join(here, '..', 'node_modules', ...name.split('/'), 'package.json');
  return JSON.parse(readFileSync(file, 'utf8')).version;
}

// A fetch that counts the HTTP requests the client made (every library here takes one).
export function countingFetch() {
  const counter = { requests: 0 };
  counter.fetch = (url, init) => {
    counter.requests += 1;
    return globalThis.fetch(url, init);
  };
  return counter;
}

// The error the client raised, in neutral shape: its class name, message and HTTP status.
export function neutralError(e) {
  if (e === null || e === undefined) return null;
  let type = 'Error';
  if (typeof e === 'object' || typeof e === 'function') {
    type = e.constructor?.name && e.constructor.name !== 'Object' ? e.constructor.name : (e.name ?? 'Error');
  } else {
    type = typeof e;
  }
  let message = typeof e === 'object' && e !== null && 'message' in e ? String(e.message) : String(e);
  if (message.length > MESSAGE_CAP) message = `${message.slice(0, MESSAGE_CAP)}…`;
  let status = null;
  for (const v of [e?.status, e?.statusCode, e?.response?.status, e?.cause?.status, e?.cause?.statusCode]) {
    if (Number.isInteger(v)) { status = v; break; }
  }
  return { type, message, status };
}

// Arguments as a caller of the library gets them: objects as given, strings as given.
export function neutralArguments(v) {
  return v === undefined ? null : v;
}

// An error as one line of text ("InvalidToolInputError: …"), for a call's invalid_reason.
export function errorText(e) {
  if (e === null || e === undefined) return null;
  if (typeof e === 'string') return e.length > MESSAGE_CAP ? `${e.slice(0, MESSAGE_CAP)}…` : e;
  const n = neutralError(e);
  return `${n.type}: ${n.message}`;
}

// The AI SDK's tool calls (generateText / streamText toolCalls): a call the SDK could not parse
// or validate comes back with invalid: true and the error, handed on as flagged.
export function fromAiSdkCalls(calls) {
  return (calls ?? []).map((c) => ({
    id: c.toolCallId, name: c.toolName, arguments: c.input,
    invalid: c.invalid === true, invalid_reason: c.invalid === true ? errorText(c.error) : null,
  }));
}

// LangChain's message calls: tool_calls, then invalid_tool_calls (flagged, their raw string and error).
export function fromLangChainCalls(m) {
  return [
    ...(m?.tool_calls ?? []).map((t) => ({ id: t.id, name: t.name, arguments: t.args })),
    ...(m?.invalid_tool_calls ?? []).map((t) => ({
      id: t.id, name: t.name, arguments: t.args, invalid: true, invalid_reason: errorText(t.error ?? null),
    })),
  ];
}

// Thrown by a driver for a request it cannot turn into the library's call: a driver failure
// (exit 2), never a verdict on the client.
export class DriverInputError extends Error {}

function fail(message) {
  process.stderr.write(`driver: ${message}\n`);
  process.exit(2);
}

async function readStdin() {
  const chunks = [];
  let size = 0;
  for await (const c of process.stdin) {
    size += c.length;
    if (size > STDIN_CAP) fail(`input larger than ${STDIN_CAP} bytes`);
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function checkInput(input, modes) {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return 'input is not a JSON object';
  if (input.protocol !== PROTOCOL) return `protocol ${JSON.stringify(input.protocol)} is not ${PROTOCOL}`;
  if (typeof input.base_url !== 'string' || !/^https?:\/\//.test(input.base_url)) return 'base_url is not an http(s) URL';
  if (!modes.includes(input.mode)) return `mode ${JSON.stringify(input.mode)} is not one of ${modes.join(', ')}`;
  if (input.request === null || typeof input.request !== 'object' || Array.isArray(input.request)) {
    return 'request is not a JSON object';
  }
  if (!Array.isArray(input.request.messages)) return 'request.messages is not an array';
  if (input.headers !== undefined && (input.headers === null || typeof input.headers !== 'object')) {
    return 'headers is not an object';
  }
  if (input.timeout_ms !== undefined && !(Number.isInteger(input.timeout_ms) && input.timeout_ms > 0)) {
    return 'timeout_ms is not a positive integer';
  }
  return null;
}

// The neutral result, with every field the protocol names, in its order.
function neutral(r, requests) {
  return {
    content: typeof r.content === 'string' ? r.content : '',
    reasoning: typeof r.reasoning === 'string' ? r.reasoning : null,
    tool_calls: (r.tool_calls ?? []).map((c) => ({
      id: c.id ?? null, name: c.name ?? null, arguments: neutralArguments(c.arguments),
      ...(c.invalid === true ? { invalid: true, invalid_reason: c.invalid_reason ?? null } : {}),
    })),
    finish_reason: r.finish_reason ?? null,
    error: r.error ?? null,
    requests,
  };
}

// main(describe, run): describe is the --describe object less "protocol"; run(input, ctx) calls
// the library and returns {content, reasoning, tool_calls, finish_reason, error}. ctx holds the
// counting fetch, an AbortSignal for timeout_ms, the headers to send, and `reported`, where a
// driver keeps an error the library handed to a callback (named in the result if it then hangs).
export async function main(describe, run) {
  const arg = process.argv[2];
  if (arg === '--describe') {
    process.stdout.write(`${JSON.stringify({ protocol: PROTOCOL, ...describe })}\n`);
    return;
  }
  if (arg !== '--run' || process.argv.length !== 3) fail('usage: driver.mjs --describe | --run < input.json');

  let input;
  try {
    input = JSON.parse(await readStdin());
  } catch (e) {
    fail(`input is not JSON: ${e.message}`);
  }
  const bad = checkInput(input, describe.modes);
  if (bad) fail(bad);

  // stdout carries exactly one JSON object: whatever a library prints goes to the log.
  const out = process.stdout.write.bind(process.stdout);
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;

  const timeoutMs = input.timeout_ms ?? 20000;
  const counter = countingFetch();
  const headers = Object.fromEntries(Object.entries(input.headers ?? {}).map(([k, v]) => [k, String(v)]));
  const ctx = { fetch: counter.fetch, signal: AbortSignal.timeout(timeoutMs), headers, timeoutMs, reported: null };
  let printed = false;
  const print = (r) => {
    if (printed) return;
    printed = true;
    out(`${JSON.stringify(neutral(r, counter.requests))}\n`, () => process.exit(0));
  };

  // A client that neither returns nor raises within timeout_ms (plus a grace for its own abort)
  // has hung: that is its answer.
  // ctx.reported holds an error the library passed to a callback before it hung, if any.
  const watchdog = setTimeout(() => {
    const seen = ctx.reported ? neutralError(ctx.reported) : null;
    const after = seen ? ` after it reported ${seen.type}: ${seen.message}` : '';
    print({
      error: { type: 'DriverTimeout', message: `the client returned nothing within ${timeoutMs} ms${after}`, status: seen?.status ?? null },
    });
  }, timeoutMs + 2000);

  let r;
  try {
    r = await run(input, ctx);
  } catch (e) {
    if (e instanceof DriverInputError) fail(e.message);
    r = { error: neutralError(e) };
  }
  clearTimeout(watchdog);
  print(r);
}
