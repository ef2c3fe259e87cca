// The official `openai` and `@anthropic-ai/sdk` SDKs against `toolwire serve --profile script`
// (the scripted reference model, docs/script.md): a toolwire-script directive in the user's
// text makes the model call a tool with the scripted arguments, and the SDK must hand that
// call back parsed — non-streamed and through each SDK's stream helper. Without a directive a
// named tool_choice gets a call with arguments generated from the tool's schema; after the tool
// result, the directive's second step answers with text.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { baseURL, capturingFetch, checkEqual, run } from './lib.mjs';

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
