// The Responses API (`/v1/responses`) against `toolwire serve`: the official `openai` SDK's
// client.responses.create (non-streamed, and `stream: true` iterating the typed events) and
// the AI SDK's default OpenAI provider (`openai(model)` of `@ai-sdk/openai` talks to
// /v1/responses) with generateText and streamText and a tool, against the replayed fixtures of
// fixtures/openai-responses/. Every request names its exchange in X-Toolwire-Exchange (the
// fixtures share request bodies); what each SDK parsed is compared with the fixture's recorded
// answer: the calls (call_id, name, arguments) and the text.
import OpenAI from 'openai';
import { generateText, streamText, tool } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { z } from 'zod';
import { capturingFetch, check, checkEqual, checkSentBody, clone, exchange, expectLogged, baseURL, run } from './lib.mjs';

const server = 'responses';
const sdk = new OpenAI({ baseURL: baseURL(server, '/v1'), apiKey: 'test', maxRetries: 0, timeout: 15000, fetch: capturingFetch });
const provider = createOpenAI({ baseURL: baseURL(server, '/v1'), apiKey: 'test' });
const named = (name, index = 0) => ({ 'X-Toolwire-Exchange': `${name}#${index}` });

// What a recorded answer holds: its function calls and its text, from the response object
// (the body, or the response of the stream's response.completed event).
function recorded(name, index = 0) {
  const r = exchange(name, index).response;
  let resp = r.body;
  if (r.events) {
    const done = r.events.map((e) => (typeof e.data === 'string' ? JSON.parse(e.data) : e.data))
      .find((d) => d.type === 'response.completed');
    resp = done.response;
  }
  const calls = resp.output.filter((o) => o.type === 'function_call')
    .map((o) => ({ call_id: o.call_id, name: o.name, arguments: JSON.parse(o.arguments) }));
  const text = resp.output.filter((o) => o.type === 'message')
    .flatMap((o) => o.content.filter((c) => c.type === 'output_text').map((c) => c.text)).join('');
  return { calls, text };
}

const callsOf = (resp) => resp.output.filter((o) => o.type === 'function_call')
  .map((o) => ({ call_id: o.call_id, name: o.name, arguments: JSON.parse(o.arguments) }));

async function sdkNonstream(name) {
  const ex = exchange(name);
  const resp = await sdk.responses.create(clone(ex.request.body), { headers: named(name) });
  expectLogged(server, name, 0);
  checkSentBody(name, ex.request.body, { exact: true });
  checkEqual(`${name}: object`, resp.object, 'response');
  const want = recorded(name);
  checkEqual(`${name}: calls`, callsOf(resp), want.calls);
  checkEqual(`${name}: output_text`, resp.output_text, want.text);
  return resp;
}

// Iterate the typed events as the SDK's users do: argument deltas appended per item, text
// deltas appended, the final response from response.completed.
async function sdkStream(name) {
  const ex = exchange(name);
  const stream = await sdk.responses.create(clone(ex.request.body), { headers: named(name) });
  expectLogged(server, name, 0);
  checkSentBody(name, ex.request.body, { exact: true });
  const items = new Map();
  let text = '';
  let final = null;
  let types = [];
  for await (const ev of stream) {
    types.push(ev.type);
    if (ev.type === 'response.output_item.added' && ev.item.type === 'function_call')
      items.set(ev.output_index, { call_id: ev.item.call_id, name: ev.item.name, args: '' });
    else if (ev.type === 'response.function_call_arguments.delta') items.get(ev.output_index).args += ev.delta;
    else if (ev.type === 'response.output_text.delta') text += ev.delta;
    else if (ev.type === 'response.completed') final = ev.response;
  }
  const want = recorded(name);
  const merged = [...items.values()].map((c) => ({ call_id: c.call_id, name: c.name, arguments: JSON.parse(c.args) }));
  checkEqual(`${name}: calls merged from the deltas`, merged, want.calls);
  checkEqual(`${name}: text merged from the deltas`, text, want.text);
  check(`${name}: response.completed arrived`, final !== null, types.join(','));
  if (final) checkEqual(`${name}: calls of response.completed`, callsOf(final), want.calls);
  checkEqual(`${name}: first event`, types[0], 'response.created');
}

// The fixtures' tools as the AI SDK's users write them.
const aiTools = {
  get_weather: tool({ description: 'Current weather for a city', inputSchema: z.object({ city: z.string(), unit: z.enum(['c', 'f']).optional() }) }),
  get_time: tool({ description: 'Current time in a time zone', inputSchema: z.object({ tz: z.string() }) }),
};
const aiCalls = (calls) => calls.map((c) => ({ call_id: c.toolCallId, name: c.toolName, arguments: c.input }));

await run('responses', [
  ['openai responses.create: one function_call', () => sdkNonstream('openai-responses/nonstream_function_call')],
  ['openai responses.create: two function_calls', () => sdkNonstream('openai-responses/nonstream_parallel_calls')],
  ['openai responses.create: text only', () => sdkNonstream('openai-responses/nonstream_text_only')],
  ['openai responses.create: reasoning with encrypted content', async () => {
    const name = 'openai-responses/nonstream_reasoning_encrypted';
    const resp = await sdkNonstream(name);
    const r = resp.output.find((o) => o.type === 'reasoning');
    check(`${name}: reasoning item with encrypted_content`, typeof r?.encrypted_content === 'string' && r.encrypted_content.length > 0);
    // the next turn built from what the SDK returned: reasoning, call and its output carried back
    const ex1 = exchange(name, 1);
    const call = resp.output.find((o) => o.type === 'function_call');
    const input = [...exchange(name, 0).request.body.input,
      { type: 'reasoning', id: r.id, summary: r.summary, encrypted_content: r.encrypted_content },
      { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
      { type: 'function_call_output', call_id: call.call_id, output: '18C, sunny' }];
    const second = await sdk.responses.create({ ...clone(ex1.request.body), input }, { headers: named(name, 1) });
    expectLogged(server, name, 1);
    checkSentBody(`${name}#1 (built from the SDK's response)`, ex1.request.body, { exact: true });
    checkEqual(`${name}#1: output_text`, second.output_text, recorded(name, 1).text);
  }],
  ['openai responses.create stream: one call in deltas', () => sdkStream('openai-responses/stream_function_call')],
  ['openai responses.create stream: two calls', () => sdkStream('openai-responses/stream_parallel_calls')],
  ['openai responses.create stream: text', () => sdkStream('openai-responses/stream_text_only')],
  ['openai responses.create stream: reasoning then a call', () => sdkStream('openai-responses/stream_reasoning_encrypted')],

  ['ai generateText with openai(): a tool call', async () => {
    const name = 'openai-responses/nonstream_function_call';
    const r = await generateText({
      model: provider('gpt-test'), prompt: 'What is the weather in Paris?', tools: aiTools,
      headers: named(name), maxRetries: 0,
    });
    expectLogged(server, name, 0);
    checkEqual(`${name}: AI SDK tool calls`, aiCalls(r.toolCalls), recorded(name).calls);
    checkEqual(`${name}: finish reason`, r.finishReason, 'tool-calls');
  }],
  ['ai generateText with openai(): text', async () => {
    const name = 'openai-responses/nonstream_text_only';
    const r = await generateText({ model: provider('gpt-test'), prompt: 'Say hello.', tools: aiTools, headers: named(name), maxRetries: 0 });
    expectLogged(server, name, 0);
    checkEqual(`${name}: AI SDK text`, r.text, recorded(name).text);
    checkEqual(`${name}: no tool calls`, r.toolCalls.length, 0);
  }],
  ['ai streamText with openai(): a tool call', async () => {
    const name = 'openai-responses/stream_function_call';
    const r = streamText({
      model: provider('gpt-test'), prompt: 'What is the weather in Paris?', tools: aiTools,
      headers: named(name), maxRetries: 0, onError: ({ error }) => check(`${name}: no stream error`, false, String(error)),
    });
    let deltas = '';
    for await (const part of r.fullStream) if (part.type === 'tool-input-delta') deltas += part.delta;
    expectLogged(server, name, 0);
    const want = recorded(name);
    checkEqual(`${name}: AI SDK tool calls`, aiCalls(await r.toolCalls), want.calls);
    checkEqual(`${name}: tool input deltas`, JSON.parse(deltas), want.calls[0].arguments);
  }],
  ['ai streamText with openai(): text', async () => {
    const name = 'openai-responses/stream_text_only';
    const r = streamText({ model: provider('gpt-test'), prompt: 'Say hello.', headers: named(name), maxRetries: 0 });
    let text = '';
    for await (const t of r.textStream) text += t;
    expectLogged(server, name, 0);
    checkEqual(`${name}: AI SDK text`, text, recorded(name).text);
  }],
]);
