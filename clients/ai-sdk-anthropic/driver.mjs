// Driver for the Vercel AI SDK with its Anthropic provider, `ai` with `@ai-sdk/anthropic`
// (docs/clients.md): createAnthropic({baseURL: base_url + "/v1", apiKey})(model) with generateText
// (mode "generateText") or streamText with the full result awaited (mode "streamText"), the
// tools as jsonSchema(input_schema) without execute so that their calls are returned, retries as
// the SDK's default. The request is Anthropic-shape.
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { DriverInputError, fromAiSdkCalls, main, neutralError, packageVersion } from '../lib/protocol.mjs';

const DESCRIBE = {
  client: 'ai-sdk-anthropic', version: `ai@${packageVersion('ai')} @ai-sdk/anthropic@${packageVersion('@ai-sdk/anthropic')}`,
  endpoint: 'anthropic', modes: ['generateText', 'streamText'],
};

function blocksOf(c) {
  if (typeof c === 'string') return [{ type: 'text', text: c }];
  if (Array.isArray(c)) return c;
  return [];
}

function textOf(c) {
  return blocksOf(c).filter((b) => b?.type === 'text').map((b) => b.text).join('');
}

// Anthropic-shape messages as AI SDK ModelMessages: tool_result blocks become a tool message
// (naming the tool of the call with that id), thinking blocks reasoning parts with their signature.
function toMessages(system, messages) {
  const out = [];
  const names = new Map();
  if (system !== undefined) out.push({ role: 'system', content: textOf(system) });
  for (const [i, m] of messages.entries()) {
    const blocks = blocksOf(m?.content);
    if (m?.role === 'user') {
      const results = blocks.filter((b) => b?.type === 'tool_result').map((b) => ({
        type: 'tool-result', toolCallId: b.tool_use_id, toolName: names.get(b.tool_use_id) ?? '',
        output: b.is_error ? { type: 'error-text', value: textOf(b.content) } : { type: 'text', value: textOf(b.content) },
      }));
      if (results.length) out.push({ role: 'tool', content: results });
      const rest = blocks.filter((b) => b?.type !== 'tool_result');
      for (const [j, b] of rest.entries()) {
        if (b?.type !== 'text') throw new DriverInputError(`messages[${i}].content[${j}]: block type ${JSON.stringify(b?.type)} has no AI SDK part`);
      }
      if (rest.length) out.push({ role: 'user', content: rest.map((b) => ({ type: 'text', text: b.text })) });
    } else if (m?.role === 'assistant') {
      const parts = [];
      for (const b of blocks) {
        if (b?.type === 'text') parts.push({ type: 'text', text: b.text });
        else if (b?.type === 'thinking') {
          parts.push({ type: 'reasoning', text: b.thinking ?? '', providerOptions: { anthropic: { signature: b.signature } } });
        } else if (b?.type === 'tool_use') {
          names.set(b.id, b.name);
          parts.push({ type: 'tool-call', toolCallId: b.id, toolName: b.name, input: b.input ?? {} });
        }
      }
      out.push({ role: 'assistant', content: parts });
    } else {
      throw new DriverInputError(`messages[${i}]: role ${JSON.stringify(m?.role)} has no AI SDK message type`);
    }
  }
  return out;
}

function toTools(tools) {
  const out = {};
  for (const [i, t] of (tools ?? []).entries()) {
    if (typeof t?.name !== 'string') throw new DriverInputError(`tools[${i}] has no name`);
    out[t.name] = tool({ description: t.description, inputSchema: jsonSchema(t.input_schema ?? { type: 'object', properties: {} }) });
  }
  return out;
}

function toToolChoice(c) {
  if (c === undefined) return undefined;
  if (c?.type === 'auto' || c?.type === 'none') return c.type;
  if (c?.type === 'any') return 'required';
  if (c?.type === 'tool' && typeof c.name === 'string') return { type: 'tool', toolName: c.name };
  throw new DriverInputError(`tool_choice ${JSON.stringify(c)} has no AI SDK form`);
}


await main(DESCRIBE, async (input, ctx) => {
  const req = input.request;
  const anthropic = createAnthropic({ baseURL: `${input.base_url}/v1`, apiKey: 'sk-toolwire-driver', headers: ctx.headers, fetch: ctx.fetch });
  const call = { model: anthropic(req.model), messages: toMessages(req.system, req.messages), abortSignal: ctx.signal };
  if (Array.isArray(req.tools) && req.tools.length) call.tools = toTools(req.tools);
  if (req.tool_choice !== undefined) call.toolChoice = toToolChoice(req.tool_choice);
  if (req.max_tokens !== undefined) call.maxOutputTokens = req.max_tokens;
  if (req.temperature !== undefined) call.temperature = req.temperature;
  if (req.top_p !== undefined) call.topP = req.top_p;
  if (req.top_k !== undefined) call.topK = req.top_k;
  if (req.stop_sequences !== undefined) call.stopSequences = req.stop_sequences;
  if (req.thinking?.type === 'enabled') {
    call.providerOptions = { anthropic: { thinking: { type: 'enabled', budgetTokens: req.thinking.budget_tokens } } };
  }

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
