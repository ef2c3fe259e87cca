// Driver for the Vercel AI SDK, `ai` with `@ai-sdk/openai` through the chat-completions provider
// createOpenAI({baseURL, apiKey}).chat(model) (docs/clients.md): generateText (mode
// "generateText") or streamText with the full result awaited (mode "streamText"), the tools as
// jsonSchema(…) without execute so that their calls are returned, retries as the SDK's default.
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { DriverInputError, fromAiSdkCalls, main, neutralError, packageVersion } from '../lib/protocol.mjs';

const DESCRIBE = {
  client: 'ai-sdk-openai', version: `ai@${packageVersion('ai')} @ai-sdk/openai@${packageVersion('@ai-sdk/openai')}`,
  endpoint: 'openai', modes: ['generateText', 'streamText'],
};

// OpenAI content (a string or content parts) as the text of an AI SDK message.
function textOf(c) {
  if (c === null || c === undefined) return '';
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.filter((p) => p?.type === 'text').map((p) => p.text).join('');
  return String(c);
}

function userContent(c, where) {
  if (typeof c === 'string' || c === null || c === undefined) return c ?? '';
  if (!Array.isArray(c)) throw new DriverInputError(`${where}: content is neither a string nor parts`);
  return c.map((p, j) => {
    if (p?.type === 'text') return { type: 'text', text: p.text };
    if (p?.type === 'image_url') return { type: 'image', image: new URL(p.image_url?.url ?? p.image_url) };
    throw new DriverInputError(`${where}.content[${j}]: part type ${JSON.stringify(p?.type)} has no AI SDK part`);
  });
}

// History arguments: the parsed JSON when they are JSON, else the string as it was.
function historyInput(raw) {
  if (typeof raw !== 'string') return raw ?? {};
  try { return JSON.parse(raw); } catch { return raw; }
}

// OpenAI-shape messages as AI SDK ModelMessages; a tool result names its tool by the call's id.
function toMessages(messages) {
  const names = new Map();
  return messages.map((m, i) => {
    const where = `messages[${i}]`;
    switch (m?.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: textOf(m.content) };
      case 'user':
        return { role: 'user', content: userContent(m.content, where) };
      case 'assistant': {
        const parts = [];
        const t = textOf(m.content);
        if (t) parts.push({ type: 'text', text: t });
        for (const tc of m.tool_calls ?? []) {
          names.set(tc.id, tc.function?.name);
          parts.push({ type: 'tool-call', toolCallId: tc.id, toolName: tc.function?.name, input: historyInput(tc.function?.arguments) });
        }
        return { role: 'assistant', content: parts };
      }
      case 'tool':
        return {
          role: 'tool',
          content: [{
            type: 'tool-result', toolCallId: m.tool_call_id, toolName: names.get(m.tool_call_id) ?? m.name ?? '',
            output: { type: 'text', value: textOf(m.content) },
          }],
        };
      default:
        throw new DriverInputError(`${where}: role ${JSON.stringify(m?.role)} has no AI SDK message type`);
    }
  });
}

function toTools(tools) {
  const out = {};
  for (const [i, t] of (tools ?? []).entries()) {
    const f = t?.function;
    if (t?.type !== 'function' || typeof f?.name !== 'string') throw new DriverInputError(`tools[${i}] is not a function tool`);
    out[f.name] = tool({ description: f.description, inputSchema: jsonSchema(f.parameters ?? { type: 'object', properties: {} }) });
  }
  return out;
}

function toToolChoice(c) {
  if (c === undefined) return undefined;
  if (c === 'auto' || c === 'required' || c === 'none') return c;
  if (c?.type === 'function' && typeof c.function?.name === 'string') return { type: 'tool', toolName: c.function.name };
  throw new DriverInputError(`tool_choice ${JSON.stringify(c)} has no AI SDK form`);
}


await main(DESCRIBE, async (input, ctx) => {
  const req = input.request;
  const openai = createOpenAI({ baseURL: `${input.base_url}/v1`, apiKey: 'sk-toolwire-driver', headers: ctx.headers, fetch: ctx.fetch });
  const call = { model: openai.chat(req.model), messages: toMessages(req.messages), abortSignal: ctx.signal };
  if (Array.isArray(req.tools) && req.tools.length) call.tools = toTools(req.tools);
  if (req.tool_choice !== undefined) call.toolChoice = toToolChoice(req.tool_choice);
  if (req.temperature !== undefined) call.temperature = req.temperature;
  if (req.top_p !== undefined) call.topP = req.top_p;
  const maxTokens = req.max_completion_tokens ?? req.max_tokens;
  if (maxTokens !== undefined) call.maxOutputTokens = maxTokens;
  if (req.stop !== undefined) call.stopSequences = Array.isArray(req.stop) ? req.stop : [req.stop];
  if (req.seed !== undefined) call.seed = req.seed;
  if (req.parallel_tool_calls !== undefined) call.providerOptions = { openai: { parallelToolCalls: req.parallel_tool_calls } };

  if (input.mode === 'generateText') {
    const r = await generateText(call);
    return {
      content: r.text, reasoning: r.reasoningText ?? null, tool_calls: fromAiSdkCalls(r.toolCalls), finish_reason: r.finishReason ?? null,
    };
  }
  // streamText hands errors to onError (the stream goes on to its end); the first one is the
  // error the caller was given. When the promises never settle, the watchdog names it.
  let streamError = null;
  const r = streamText({ ...call, onError: ({ error }) => { streamError ??= error; ctx.reported ??= error; } });
  const [text, reasoning, toolCalls, finishReason] = await Promise.all([r.text, r.reasoningText, r.toolCalls, r.finishReason]);
  return {
    content: text, reasoning: reasoning ?? null, tool_calls: fromAiSdkCalls(toolCalls), finish_reason: finishReason ?? null,
    error: neutralError(streamError),
  };
});
