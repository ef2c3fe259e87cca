// The official `openai` and `@anthropic-ai/sdk` SDKs against `toolwire serve --profile script`
// (the scripted reference model, docs/script.md): a toolwire-script directive in the user's
// text makes the model call a tool with the scripted arguments, and the SDK must hand that
// call back parsed — non-streamed and through each SDK's stream helper. Without a directive a
// named tool_choice gets a call with arguments generated from the tool's schema; after the tool
// result, the directive's second step answers with text. The Responses API (/v1/responses) the
// same way: the `openai` SDK's client.responses.create (plain and `stream: true`) and the AI SDK's
// default provider, openai(…), with generateText running the tool and sending its result back.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { generateText, stepCountIs, tool as aiTool } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { z } from 'zod';
import { baseURL, capturingFetch, checkEqual, run, sent } from './lib.mjs';

const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
  required: ['city', 'unit'],
  additionalProperties: false,
};
const ARGS = { city: 'Paris', unit: 'c' };
const DIRECTIVE = 'What is the weather in Paris? toolwire-script ' + JSON.stringify({
  nonce: 'interop-script-1',
  steps: [
    { reasoning: 'The weather tool answers this.', text: 'Let me look.', calls: [{ name: 'get_weather', arguments: ARGS }] },
    { text: 'It is 18 C in Paris.' },
  ],
});

const openai = new OpenAI({
  baseURL: baseURL('script', '/v1'), apiKey: 'test', maxRetries: 0, timeout: 15000, fetch: capturingFetch,
});
const anthropic = new Anthropic({
  baseURL: baseURL('script'), apiKey: 'test', maxRetries: 0, timeout: 15000, fetch: capturingFetch,
});

const oaiTools = [{ type: 'function', function: { name: 'get_weather', parameters: SCHEMA } }];
const antTools = [{ name: 'get_weather', input_schema: SCHEMA }];
const oaiBody = (content, extra = {}) => ({
  model: 'scripted', messages: [{ role: 'user', content }], tools: oaiTools, ...extra,
});
const antBody = (content, extra = {}) => ({
  model: 'scripted', max_tokens: 512, messages: [{ role: 'user', content }], tools: antTools, ...extra,
});

const rspTools = [{ type: 'function', name: 'get_weather', parameters: SCHEMA }];
const rspBody = (input, extra = {}) => ({ model: 'scripted', input, tools: rspTools, ...extra });

// The function_call items of a Responses `response` object.
function checkResponsesCall(label, resp, args) {
  const calls = resp.output.filter((o) => o.type === 'function_call');
  checkEqual(`${label}: one function_call`, calls.length, 1);
  checkEqual(`${label}: name`, calls[0]?.name, 'get_weather');
  checkEqual(`${label}: parsed arguments`, JSON.parse(calls[0]?.arguments ?? 'null'), args);
  return calls[0];
}

// The AI SDK's weather tool; its inputs land in `seen`.
const weatherTool = (seen) => ({
  get_weather: aiTool({
    description: 'The weather in a city',
    inputSchema: z.object({ city: z.string(), unit: z.enum(['c', 'f']) }),
    execute: async (input) => { seen.push(input); return '18 C, clear'; },
  }),
});

function checkOpenAICall(label, message, args) {
  checkEqual(`${label}: one tool call`, message.tool_calls?.length, 1);
  const call = message.tool_calls?.[0];
  checkEqual(`${label}: tool name`, call?.function?.name, 'get_weather');
  checkEqual(`${label}: parsed arguments`, JSON.parse(call?.function?.arguments ?? 'null'), args);
}

function checkAnthropicCall(label, msg, args) {
  const uses = msg.content.filter((b) => b.type === 'tool_use');
  checkEqual(`${label}: one tool_use block`, uses.length, 1);
  checkEqual(`${label}: tool name`, uses[0]?.name, 'get_weather');
  checkEqual(`${label}: input`, uses[0]?.input, args);
  checkEqual(`${label}: stop_reason`, msg.stop_reason, 'tool_use');
}

await run('script', [
  ['openai: scripted call, non-streamed', async () => {
    const c = await openai.chat.completions.create(oaiBody(DIRECTIVE));
    checkOpenAICall('openai', c.choices[0].message, ARGS);
    checkEqual('openai: content', c.choices[0].message.content, 'Let me look.');
    checkEqual('openai: reasoning_content', c.choices[0].message.reasoning_content, 'The weather tool answers this.');
    checkEqual('openai: finish_reason', c.choices[0].finish_reason, 'tool_calls');
  }],
  ['openai: scripted call through the stream helper', async () => {
    const s = openai.chat.completions.stream(oaiBody(DIRECTIVE));
    const c = await s.finalChatCompletion();
    checkOpenAICall('openai stream', c.choices[0].message, ARGS);
  }],
  ['openai: the tool result round trip reaches step 1', async () => {
    const first = await openai.chat.completions.create(oaiBody(DIRECTIVE));
    const m = first.choices[0].message;
    const body = oaiBody(DIRECTIVE);
    body.messages.push({ role: 'assistant', content: m.content, tool_calls: m.tool_calls },
      { role: 'tool', tool_call_id: m.tool_calls[0].id, content: '18 C, clear' });
    const second = await openai.chat.completions.create(body);
    checkEqual('openai round trip: text', second.choices[0].message.content, 'It is 18 C in Paris.');
    checkEqual('openai round trip: no call', second.choices[0].message.tool_calls ?? [], []);
  }],
  ['openai: named tool_choice without a directive', async () => {
    const c = await openai.chat.completions.create(oaiBody('Weather?', {
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    }));
    checkOpenAICall('openai named', c.choices[0].message, { city: 'example', unit: 'c' });
  }],
  ['openai responses.create: scripted call, reasoning and text', async () => {
    const r = await openai.responses.create(rspBody(DIRECTIVE));
    checkResponsesCall('responses', r, ARGS);
    checkEqual('responses: status', r.status, 'completed');
    checkEqual('responses: output_text', r.output_text, 'Let me look.');
    const reasoning = r.output.find((o) => o.type === 'reasoning');
    checkEqual('responses: reasoning summary', reasoning?.summary?.map((p) => p.text).join(''), 'The weather tool answers this.');
  }],
  ['openai responses.create stream: the typed events', async () => {
    const s = await openai.responses.create(rspBody(DIRECTIVE, { stream: true }));
    const types = [];
    let args = '';
    let text = '';
    let done = null;
    for await (const e of s) {
      types.push(e.type);
      if (e.type === 'response.function_call_arguments.delta') args += e.delta;
      if (e.type === 'response.output_text.delta') text += e.delta;
      if (e.type === 'response.completed') done = e.response;
    }
    checkEqual('responses stream: first event', types[0], 'response.created');
    checkEqual('responses stream: last event', types.at(-1), 'response.completed');
    checkEqual('responses stream: arguments from the deltas', JSON.parse(args || 'null'), ARGS);
    checkEqual('responses stream: text from the deltas', text, 'Let me look.');
    checkResponsesCall('responses stream: completed response', done, ARGS);
  }],
  ['openai responses.create: the function_call_output round trip reaches step 1', async () => {
    const first = await openai.responses.create(rspBody(DIRECTIVE));
    const call = checkResponsesCall('responses round trip', first, ARGS);
    const input = [{ role: 'user', content: DIRECTIVE },
      { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
      { type: 'function_call_output', call_id: call.call_id, output: '18 C, clear' }];
    const second = await openai.responses.create(rspBody(input));
    checkEqual('responses round trip: text', second.output_text, 'It is 18 C in Paris.');
    checkEqual('responses round trip: no call', second.output.filter((o) => o.type === 'function_call'), []);
  }],
  ['openai responses.create: named and none tool_choice without a directive', async () => {
    const named = await openai.responses.create(rspBody('Weather?', { tool_choice: { type: 'function', name: 'get_weather' } }));
    checkResponsesCall('responses named', named, { city: 'example', unit: 'c' });
    const none = await openai.responses.create(rspBody('Weather?', { tool_choice: 'none' }));
    checkEqual('responses none: no call', none.output.filter((o) => o.type === 'function_call'), []);
    checkEqual('responses none: text', none.output_text,
      'This is the toolwire reference model; nothing was asked of a tool.');
  }],
  ['ai generateText, default openai() provider: the call, then the tool result turn', async () => {
    // the reference server stores no responses: the items go back whole (store: false); for a
    // reasoning model the SDK then asks for reasoning.encrypted_content and carries it back
    const provider = createOpenAI({ baseURL: baseURL('script', '/v1'), apiKey: 'test', fetch: capturingFetch });
    const seen = [];
    const r = await generateText({
      model: provider('o4-mini'), prompt: DIRECTIVE, maxRetries: 0, stopWhen: stepCountIs(2),
      providerOptions: { openai: { store: false } },
      tools: weatherTool(seen),
    });
    checkEqual('ai: two steps', r.steps.length, 2);
    const calls = r.steps[0].toolCalls.map((t) => ({ name: t.toolName, input: t.input }));
    checkEqual('ai: step 0 tool call', calls, [{ name: 'get_weather', input: ARGS }]);
    checkEqual('ai: the tool ran with the parsed arguments', seen, [ARGS]);
    checkEqual('ai: step 0 text', r.steps[0].text, 'Let me look.');
    checkEqual('ai: step 1 text after the tool result', r.text, 'It is 18 C in Paris.');
    checkEqual('ai: step 1 calls nothing', r.steps[1].toolCalls, []);
    const reqs = sent.filter((q) => q.url.endsWith('/responses'));
    const last = reqs.at(-1)?.body;
    const out = last?.input?.find((i) => i.type === 'function_call_output');
    checkEqual('ai: the result turn carries the call id', out?.call_id, r.steps[0].toolCalls[0]?.toolCallId);
    checkEqual('ai: step 0 reasoning', r.steps[0].reasoningText, 'The weather tool answers this.');
    const first = reqs.at(-2)?.body;
    checkEqual('ai: the first turn asks for encrypted reasoning', first?.include, ['reasoning.encrypted_content']);
    const rs = last?.input?.find((i) => i.type === 'reasoning');
    checkEqual('ai: the reasoning item goes back with its encrypted_content',
      /^toolwire-sig-[0-9a-f]{16}$/.test(rs?.encrypted_content ?? ''), true);
  }],
  ['ai generateText, default openai() provider, store left on: the stored items are refused', async () => {
    // with store on the SDK sends the earlier turn as item_reference items, which a server
    // that stores nothing cannot look up: 400 saying so, never a silently different turn
    const provider = createOpenAI({ baseURL: baseURL('script', '/v1'), apiKey: 'test' });
    let error = null;
    try {
      await generateText({
        model: provider('gpt-4o-mini'), prompt: DIRECTIVE, maxRetries: 0, stopWhen: stepCountIs(2),
        tools: weatherTool([]),
      });
    } catch (e) {
      error = e;
    }
    checkEqual('ai store on: status', error?.statusCode, 400);
    checkEqual('ai store on: the reason names the reference', /item_reference 'rs_0' names a stored item/.test(error?.message ?? ''), true);
  }],
  ['anthropic: scripted call, non-streamed', async () => {
    const msg = await anthropic.messages.create(antBody(DIRECTIVE));
    checkAnthropicCall('anthropic', msg, ARGS);
    checkEqual('anthropic: text', msg.content.filter((b) => b.type === 'text').map((b) => b.text).join(''), 'Let me look.');
  }],
  ['anthropic: scripted call through the stream helper', async () => {
    const msg = await anthropic.messages.stream(antBody(DIRECTIVE)).finalMessage();
    checkAnthropicCall('anthropic stream', msg, ARGS);
  }],
  ['anthropic: named tool_choice without a directive', async () => {
    const msg = await anthropic.messages.create(antBody('Weather?', { tool_choice: { type: 'tool', name: 'get_weather' } }));
    checkAnthropicCall('anthropic named', msg, { city: 'example', unit: 'c' });
  }],
]);
