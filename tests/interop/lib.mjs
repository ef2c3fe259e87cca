// Shared helpers of the interop tests: fixtures, comparisons, the request capture and the
// list of exchanges each script expects the mock to log (checked by check-log.mjs).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function fixture(name) {
  return JSON.parse(readFileSync(join(ROOT, 'fixtures', `${name}.json`), 'utf8'));
}

export function exchange(name, index = 0) {
  const ex = fixture(name).exchanges[index];
  if (!ex) throw new Error(`${name} has no exchange ${index}`);
  return ex;
}

export function clone(v) {
  return JSON.parse(JSON.stringify(v));
}

// The mock's normalised matching (docs/harness.md): these top-level keys are left out.
const IGNORED = ['stream', 'stream_options', 'model', 'temperature', 'top_p', 'max_tokens', 'seed', 'user', 'n',
  'max_completion_tokens', 'frequency_penalty', 'presence_penalty', 'top_k'];
export function normalised(body) {
  const b = clone(body);
  for (const k of IGNORED) delete b[k];
  return b;
}

// Ports of the servers run.sh started, from the environment.
export function baseURL(profile, suffix = '') {
  const port = process.env[`TW_PORT_${profile.toUpperCase().replace('-', '_')}`];
  if (!port) throw new Error(`TW_PORT_${profile.toUpperCase()} is not set (run through run.sh)`);
  return `http://127.0.0.1:${port}${suffix}`;
}

// A fetch that keeps what the SDK sent, to compare it with the fixture's request.
export const sent = [];
export async function capturingFetch(url, init = {}) {
  let body = null;
  if (typeof init.body === 'string') {
    try { body = JSON.parse(init.body); } catch { body = init.body; }
  }
  const headers = new Headers(init.headers);
  sent.push({ url: String(url), method: init.method, body, headers: Object.fromEntries(headers) });
  return fetch(url, init);
}

let failures = 0;
let passes = 0;
const expected = [];

// One mock request the script made: which server should log it, as which exchange, with what status.
export function expectLogged(server, fixtureName, index, status = 200) {
  expected.push({ server, exchange: `${fixtureName}#${index}`, status });
}

export function check(label, cond, detail = '') {
  if (cond) {
    passes++;
  } else {
    failures++;
    console.log(`FAIL ${label}${detail ? `: ${detail}` : ''}`);
  }
}

export function checkEqual(label, got, want) {
  const ok = isDeepStrictEqual(got, want);
  check(label, ok, ok ? '' : `got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

// The last body the SDK sent equals the fixture's request body (as the mock matches it).
export function checkSentBody(label, fixtureBody, { exact = false } = {}) {
  const last = sent[sent.length - 1];
  if (!last) return check(`${label}: request sent`, false);
  if (exact) checkEqual(`${label}: SDK request body`, last.body, fixtureBody);
  else checkEqual(`${label}: SDK request body (normalised)`, normalised(last.body), normalised(fixtureBody));
}

// Compare a neutral result made of what the SDK returned with the fixture's expect.result:
// content, thinking, finish_reason, and per call the fields the fixture gives (generated ids
// may be left out of a fixture).
export function checkResult(label, got, want) {
  if (!want) return check(`${label}: fixture has expect.result`, false);
  checkEqual(`${label}: content`, got.content, want.content ?? '');
  checkEqual(`${label}: thinking`, got.thinking, want.thinking ?? '');
  checkEqual(`${label}: finish_reason`, got.finish_reason, want.finish_reason);
  if ('thinking_signature' in want) checkEqual(`${label}: thinking_signature`, got.thinking_signature, want.thinking_signature);
  const wc = want.tool_calls ?? [];
  checkEqual(`${label}: number of tool calls`, got.tool_calls.length, wc.length);
  wc.forEach((w, i) => {
    const g = got.tool_calls[i] ?? {};
    for (const k of Object.keys(w)) checkEqual(`${label}: tool_calls[${i}].${k}`, g[k], w[k]);
  });
}

function parseArgs(s) {
  try { return JSON.parse(s); } catch { return { unparsable: s }; }
}

// ChatCompletion (as the openai SDK returns it) -> neutral result.
export function neutralFromOpenAI(completion) {
  const choice = completion.choices[0];
  const m = choice.message;
  return {
    content: typeof m.content === 'string' ? m.content : '',
    thinking: m.reasoning_content ?? m.reasoning ?? '',
    tool_calls: (m.tool_calls ?? []).map((c) => ({
      id: c.id, name: c.function.name, arguments: parseArgs(c.function.arguments),
    })),
    finish_reason: choice.finish_reason,
  };
}

const STOP = { end_turn: 'stop', stop_sequence: 'stop', tool_use: 'tool_calls', max_tokens: 'length' };

// Message (as the Anthropic SDK returns it) -> neutral result.
export function neutralFromAnthropic(message) {
  const blocks = message.content;
  return {
    content: blocks.filter((b) => b.type === 'text').map((b) => b.text).join(''),
    thinking: blocks.filter((b) => b.type === 'thinking').map((b) => b.thinking).join(''),
    tool_calls: blocks.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, arguments: b.input })),
    finish_reason: STOP[message.stop_reason] ?? message.stop_reason,
    thinking_signature: blocks.filter((b) => b.type === 'thinking').map((b) => b.signature ?? '').join(''),
  };
}

// Run the named cases in order; a thrown error fails the case, the others still run.
export async function run(script, cases) {
  for (const [name, fn] of cases) {
    const before = failures;
    try {
      await fn();
    } catch (e) {
      failures++;
      console.log(`FAIL ${name}: ${e?.stack ?? e}`);
    }
    console.log(`${failures === before ? 'ok  ' : 'FAIL'} ${script}: ${name}`);
  }
  const out = process.env.TW_INTEROP_OUT;
  if (out) writeFileSync(join(out, `${script}.expect.json`), JSON.stringify(expected, null, 1));
  console.log(`${script}: ${passes} assertions passed, ${failures} failed`);
  process.exitCode = failures ? 1 : 0;
}
