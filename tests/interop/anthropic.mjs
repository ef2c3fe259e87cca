// The official `@anthropic-ai/sdk` against `toolwire serve`: the anthropic profile (model
// text decoded by the reference decoder, answered by the reference Anthropic encoders,
// fixtures/anthropic/ref_*.json) and the replay profile (recorded responses and streams).
// messages.create for non-streamed exchanges, messages.stream(...).finalMessage() for streams.
import Anthropic from '@anthropic-ai/sdk';
import {
  baseURL, capturingFetch, check, checkEqual, checkResult, checkSentBody, clone, exchange,
  expectLogged, neutralFromAnthropic, run, sent,
} from './lib.mjs';

function client(profile) {
  return new Anthropic({
    baseURL: baseURL(profile), apiKey: 'test', maxRetries: 0, timeout: 15000, fetch: capturingFetch,
  });
}

const reference = client('anthropic');
const replay = client('replay');
const SERVER = new Map([[reference, 'anthropic'], [replay, 'replay']]);
const opts = (name, index = 0) => ({ headers: { 'X-Toolwire-Exchange': `${name}#${index}` } });

const capturingFetchLast = () => sent[sent.length - 1];

function checkHeaders(label) {
  const h = capturingFetchLast().headers;
  // The key as x-api-key (the Messages API's header) or, as SDK 1.x sends it, a Bearer token.
  check(`${label}: API key sent`, h['x-api-key'] === 'test' || h.authorization === 'Bearer test',
    `x-api-key ${h['x-api-key']}, authorization ${h.authorization}`);
  check(`${label}: anthropic-version sent`, typeof h['anthropic-version'] === 'string' && h['anthropic-version'].length > 0);
}

async function create(name, sdk = reference, index = 0) {
  const ex = exchange(name, index);
  const msg = await sdk.messages.create(clone(ex.request.body), opts(name, index));
  expectLogged(SERVER.get(sdk), name, index);
  checkSentBody(name, ex.request.body, { exact: true });
  checkHeaders(name);
  checkEqual(`${name}: type`, msg.type, 'message');
  checkResult(name, neutralFromAnthropic(msg), ex.expect?.result);
  return msg;
}

async function stream(name, sdk = reference, index = 0) {
  const ex = exchange(name, index);
  const body = clone(ex.request.body);
  delete body.stream;
  const s = sdk.messages.stream(body, opts(name, index));
  const events = [];
  s.on('streamEvent', (e) => events.push(e.type));
  const msg = await s.finalMessage();
  expectLogged(SERVER.get(sdk), name, index);
  checkSentBody(name, ex.request.body);
  checkHeaders(name);
  checkEqual(`${name}: SDK sent stream: true`, capturingFetchLast().body.stream, true);
  checkEqual(`${name}: first and last events`, [events[0], events[events.length - 1]], ['message_start', 'message_stop']);
  checkResult(`${name} (finalMessage)`, neutralFromAnthropic(msg), ex.expect?.result);
  return msg;
}

// A tool loop with thinking, the next turn built from the SDK's own message: the thinking
// block goes back with its signature (the mock judges CLI-10 on it; check-log.mjs fails the
// run on a failed client check).
async function thinkingLoop(name, sdk, streamed) {
  const ex0 = exchange(name, 0);
  const ex1 = exchange(name, 1);
  const body = clone(ex0.request.body);
  delete body.stream;
  const first = streamed ? await sdk.messages.stream(body, opts(name, 0)).finalMessage()
    : await sdk.messages.create(body, opts(name, 0));
  expectLogged(SERVER.get(sdk), name, 0);
  checkResult(`${name}#0`, neutralFromAnthropic(first), ex0.expect.result);
  const thinking = first.content.find((b) => b.type === 'thinking');
  check(`${name}#0: the SDK's thinking block has a signature`, typeof thinking?.signature === 'string' &&
    thinking.signature.length > 0, JSON.stringify(thinking));
  const wanted = ex1.request.body.messages.at(-1).content.find((b) => b.type === 'tool_result');
  const messages = [...body.messages, { role: first.role, content: first.content },
    { role: 'user', content: first.content.filter((b) => b.type === 'tool_use')
      .map((b) => ({ type: 'tool_result', tool_use_id: b.id, content: wanted.content })) }];
  const next = { ...body, messages };
  const final = ex1.request.body.stream ? await sdk.messages.stream(next, opts(name, 1)).finalMessage()
    : await sdk.messages.create(next, opts(name, 1));
  expectLogged(SERVER.get(sdk), name, 1);
  checkSentBody(`${name}#1 (built from the SDK's message)`, ex1.request.body);
  checkResult(`${name}#1`, neutralFromAnthropic(final), ex1.expect.result);
}

await run('anthropic', [
  ['reference, non-streamed tool call (anthropic/ref_tool_call)', () => create('anthropic/ref_tool_call')],
  ['reference, non-streamed parallel calls (anthropic/ref_parallel_calls)', () => create('anthropic/ref_parallel_calls')],
  ['reference, non-streamed thinking and a call (anthropic/ref_thinking_tool_call)', () => create('anthropic/ref_thinking_tool_call')],
  ['reference, streamed tool call (anthropic/ref_tool_call_stream)', () => stream('anthropic/ref_tool_call_stream')],
  ['reference, streamed parallel calls (anthropic/ref_parallel_calls_stream)', () => stream('anthropic/ref_parallel_calls_stream')],
  ['reference, streamed thinking then text (anthropic/ref_thinking_stream)', async () => {
    const msg = await stream('anthropic/ref_thinking_stream');
    checkEqual('anthropic/ref_thinking_stream: block types', msg.content.map((b) => b.type), ['thinking', 'text']);
  }],
  ['reference, streamed text only (anthropic/ref_text_only_stream)', () => stream('anthropic/ref_text_only_stream')],
  ['reference, call inside a closed think block stays thinking (anthropic/ref_call_inside_closed_think)', () =>
    stream('anthropic/ref_call_inside_closed_think')],

  ['reference, multi-turn: tool_use then tool_result, streamed answer (anthropic/ref_multi_turn_tool_result)', async () => {
    const name = 'anthropic/ref_multi_turn_tool_result';
    const ex0 = exchange(name, 0);
    const ex1 = exchange(name, 1);
    const body = clone(ex0.request.body);
    const first = await reference.messages.create(body, opts(name, 0));
    expectLogged('anthropic', name, 0);
    checkResult(`${name}#0`, neutralFromAnthropic(first), ex0.expect.result);
    // The next turn is built from what the SDK returned, as an agent loop does.
    const wanted = ex1.request.body.messages.at(-1).content.find((b) => b.type === 'tool_result');
    const messages = [...body.messages, { role: first.role, content: first.content },
      { role: 'user', content: first.content.filter((b) => b.type === 'tool_use')
        .map((b) => ({ type: 'tool_result', tool_use_id: b.id, content: wanted.content })) }];
    const final = await reference.messages.stream({ ...body, messages }, opts(name, 1)).finalMessage();
    expectLogged('anthropic', name, 1);
    checkSentBody(`${name}#1 (built from the SDK's message)`, ex1.request.body);
    checkResult(`${name}#1 (finalMessage)`, neutralFromAnthropic(final), ex1.expect.result);
  }],

  ['reference, multi-turn: signed thinking sent back as the SDK returned it (anthropic/ref_thinking_multi_turn)', () =>
    thinkingLoop('anthropic/ref_thinking_multi_turn', reference, false)],
  ['replay, multi-turn: a streamed signature carried back (anthropic/client_thinking_signature_carried)', () =>
    thinkingLoop('anthropic/client_thinking_signature_carried', replay, true)],

  ['replay, recorded response (anthropic/response_tool_use)', () => create('anthropic/response_tool_use', replay)],
  ['replay, recorded stream with a tool_use block (anthropic/stream_tool_use)', () => stream('anthropic/stream_tool_use', replay)],
  ['replay, recorded stream: signed thinking then tool_use (anthropic/stream_thinking_signature_tool_use)', () =>
    stream('anthropic/stream_thinking_signature_tool_use', replay)],
  ['replay, recorded stream with pings anywhere (anthropic/stream_pings_anywhere)', () =>
    stream('anthropic/stream_pings_anywhere', replay)],
]);
