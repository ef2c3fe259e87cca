// Four SDKs' default requests against one `toolwire serve` of three fixtures, reached by URL as a
// live server would be, without X-Toolwire-Exchange: `openai`, `@anthropic-ai/sdk`,
// `@langchain/openai` (ChatOpenAI.bindTools(…).invoke with zod tools) and `ai` with
// `@ai-sdk/openai` (generateText through the chat-completions provider, openai.chat(…), and
// through its default provider, openai(…), which talks to /v1/responses).
// LangChain and the AI SDK decorate the tools' schemas ("$schema", "additionalProperties":
// false, "strict": false, "tool_choice": "auto"); the mock's matching must see through that.
// Each SDK must get the fixture's answer, a tool call it parsed, and the server log must show
// the request matched to that fixture's exchange with status 200 (never a 404).
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { ChatOpenAI } from '@langchain/openai';
import { tool as lcTool } from '@langchain/core/tools';
import { generateText, tool as aiTool } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { z } from 'zod';
import { check, checkEqual, exchange, run } from './lib.mjs';

const port = process.env.TW_PORT_SDKS;
const logFile = process.env.TW_SDKS_LOG;
if (!port || !logFile) throw new Error('TW_PORT_SDKS and TW_SDKS_LOG are not set (run through run.sh)');
const base = `http://127.0.0.1:${port}`;
const apiKey = 'sk-interop-not-a-secret';

const OAI = 'openai/nonstream_single_call';
const ANT = 'anthropic/response_tool_use';
const oaiEx = exchange(OAI);
const antEx = exchange(ANT);
const RSP = 'openai-responses/nonstream_function_call';
const rspEx = exchange(RSP);
const question = oaiEx.request.body.messages[0].content;
// What the fixtures answer: the calls of expect.result (name and parsed arguments).
const wantCalls = (ex) => ex.expect.result.tool_calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));

// The fixture's tools as each SDK's users write them.
const zodWeather = z.object({ city: z.string(), unit: z.enum(['c', 'f']).optional() });
const zodTime = z.object({ tz: z.string() });
const descr = Object.fromEntries(oaiEx.request.body.tools.map((t) => [t.function.name, t.function.description]));

// The log lines of the server so far (it writes one per request, flushed).
function logLines() {
  return readFileSync(logFile, 'utf8').split('\n').filter((l) => /^#\d+ /.test(l));
}

// The newest log line: matched to `name#0` with 200, and (when given) its body holds `needle`.
function checkLogged(label, name, needle) {
  const line = logLines().at(-1) ?? '';
  check(`${label}: served by ${name}#0 with 200`, line.includes(` -> ${name}#0 200`), line);
  check(`${label}: no 404`, !line.includes(' 404'), line);
  if (needle) check(`${label}: the logged body shows ${needle}`, line.includes(needle), line);
}

await run('sdk-defaults', [
  ['openai chat.completions.create', async () => {
    const c = new OpenAI({ baseURL: `${base}/v1`, apiKey, maxRetries: 0, timeout: 15000 });
    const r = await c.chat.completions.create({
      model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }], tools: oaiEx.request.body.tools,
    });
    const got = (r.choices[0].message.tool_calls ?? []).map((t) => ({
      id: t.id, name: t.function.name, arguments: JSON.parse(t.function.arguments),
    }));
    checkEqual('openai: tool calls', got, wantCalls(oaiEx));
    checkLogged('openai', OAI);
  }],
  ['@anthropic-ai/sdk messages.create', async () => {
    const c = new Anthropic({ baseURL: base, apiKey, maxRetries: 0, timeout: 15000 });
    const body = antEx.request.body;
    const r = await c.messages.create({
      model: 'claude-test', max_tokens: body.max_tokens, messages: [{ role: 'user', content: question }],
      tools: body.tools,
    });
    const got = r.content.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, arguments: b.input }));
    checkEqual('anthropic: tool calls', got, wantCalls(antEx));
    checkLogged('anthropic', ANT);
  }],
  ['@langchain/openai ChatOpenAI.bindTools().invoke', async () => {
    const weather = lcTool(async () => '', { name: 'get_weather', description: descr.get_weather, schema: zodWeather });
    const time = lcTool(async () => '', { name: 'get_time', description: descr.get_time, schema: zodTime });
    const model = new ChatOpenAI({ model: 'gpt-4o-mini', apiKey, configuration: { baseURL: `${base}/v1` }, maxRetries: 0 });
    const r = await model.bindTools([weather, time]).invoke(question);
    const got = (r.tool_calls ?? []).map((t) => ({ id: t.id, name: t.name, arguments: t.args }));
    checkEqual('langchain: tool calls', got, wantCalls(oaiEx));
    checkLogged('langchain', OAI, '"$schema"');
  }],
  ['ai generateText with openai.chat()', async () => {
    const openai = createOpenAI({ baseURL: `${base}/v1`, apiKey });
    const r = await generateText({
      model: openai.chat('gpt-4o-mini'), prompt: question, maxRetries: 0,
      tools: {
        get_weather: aiTool({ description: descr.get_weather, inputSchema: zodWeather }),
        get_time: aiTool({ description: descr.get_time, inputSchema: zodTime }),
      },
    });
    const got = r.toolCalls.map((t) => ({ id: t.toolCallId, name: t.toolName, arguments: t.input }));
    checkEqual('ai: tool calls', got, wantCalls(oaiEx));
    checkLogged('ai', OAI, '"tool_choice":"auto"');
  }],
  ['ai generateText with the default openai() provider (the Responses API)', async () => {
    // the provider's default model talks to /v1/responses: the user message as an input_text
    // part, the tools flat with "$schema", "additionalProperties": false and "strict": false
    const openai = createOpenAI({ baseURL: `${base}/v1`, apiKey });
    const r = await generateText({
      model: openai('gpt-4o-mini'), prompt: question, maxRetries: 0,
      tools: {
        get_weather: aiTool({ description: descr.get_weather, inputSchema: zodWeather }),
        get_time: aiTool({ description: descr.get_time, inputSchema: zodTime }),
      },
    });
    const out = rspEx.response.body.output.filter((o) => o.type === 'function_call');
    const got = r.toolCalls.map((t) => ({ id: t.toolCallId, name: t.toolName, arguments: t.input }));
    checkEqual('ai responses: tool calls', got, out.map((o) => ({ id: o.call_id, name: o.name, arguments: JSON.parse(o.arguments) })));
    checkLogged('ai responses', RSP, '"input_text"');
  }],
  ['the server log', async () => {
    // nothing else reached the server, and the API key never reached its log
    const lines = logLines();
    check('sdk-defaults: five requests logged', lines.length === 5, lines.join('\n'));
    check('sdk-defaults: the API key is not in the log', !readFileSync(logFile, 'utf8').includes(apiKey));
  }],
]);
