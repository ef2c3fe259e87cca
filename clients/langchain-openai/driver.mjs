// Driver for LangChain's OpenAI chat model, `@langchain/openai` (docs/clients.md):
// new ChatOpenAI({…}).bindTools(tools, {tool_choice}) then .invoke(messages) (mode "invoke") or
// .stream(messages) with the chunks joined by chunk.concat (mode "stream"). The tool calls are the
// message's tool_calls followed by its invalid_tool_calls, as LangChain hands them over.
import { ChatOpenAI } from '@langchain/openai';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { DriverInputError, fromLangChainCalls, main, packageVersion } from '../lib/protocol.mjs';

const DESCRIBE = {
  client: 'langchain-openai', version: packageVersion('@langchain/openai'), endpoint: 'openai', modes: ['invoke', 'stream'],
};

// OpenAI content (a string, null or content parts) as LangChain message content.
function content(c) {
  if (c === null || c === undefined) return '';
  return c;
}

// One OpenAI-shape tool call of the history as a LangChain tool call; arguments that are not a
// JSON object stay a string and go in invalid_tool_calls, as LangChain itself files them.
function historyCall(tc, valid, invalid) {
  const raw = tc?.function?.arguments;
  let args;
  if (typeof raw === 'string') {
    try { args = JSON.parse(raw); } catch { args = undefined; }
  } else if (raw && typeof raw === 'object') {
    args = raw;
  }
  if (args && typeof args === 'object' && !Array.isArray(args)) {
    valid.push({ id: tc.id, name: tc.function?.name, args, type: 'tool_call' });
  } else {
    invalid.push({ id: tc.id, name: tc.function?.name, args: typeof raw === 'string' ? raw : JSON.stringify(raw), error: 'not a JSON object', type: 'invalid_tool_call' });
  }
}

function toMessages(messages) {
  return messages.map((m, i) => {
    switch (m?.role) {
      case 'system':
      case 'developer':
        return new SystemMessage({ content: content(m.content) });
      case 'user':
        return new HumanMessage({ content: content(m.content), ...(m.name ? { name: m.name } : {}) });
      case 'assistant': {
        const toolCalls = [];
        const invalid = [];
        for (const tc of m.tool_calls ?? []) historyCall(tc, toolCalls, invalid);
        const extra = m.reasoning_content !== undefined ? { reasoning_content: m.reasoning_content } : {};
        return new AIMessage({ content: content(m.content), tool_calls: toolCalls, invalid_tool_calls: invalid, additional_kwargs: extra });
      }
      case 'tool':
        return new ToolMessage({ content: content(m.content), tool_call_id: m.tool_call_id });
      default:
        throw new DriverInputError(`messages[${i}]: role ${JSON.stringify(m?.role)} has no LangChain message type`);
    }
  });
}

// The text of a LangChain message's content (a string or content blocks).
function text(c) {
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c.filter((b) => b?.type === 'text' && typeof b.text === 'string').map((b) => b.text).join('');
}

function fromMessage(m) {
  const reasoning = m?.additional_kwargs?.reasoning_content;
  const meta = m?.response_metadata ?? {};
  return {
    content: text(m?.content),
    reasoning: typeof reasoning === 'string' ? reasoning : null,
    tool_calls: fromLangChainCalls(m),
    finish_reason: meta.finish_reason ?? null,
  };
}

await main(DESCRIBE, async (input, ctx) => {
  const req = input.request;
  const fields = {
    model: req.model, apiKey: 'sk-toolwire-driver', timeout: ctx.timeoutMs,
    configuration: { baseURL: `${input.base_url}/v1`, fetch: ctx.fetch, defaultHeaders: ctx.headers },
  };
  if (req.temperature !== undefined) fields.temperature = req.temperature;
  if (req.top_p !== undefined) fields.topP = req.top_p;
  if (req.max_tokens !== undefined) fields.maxTokens = req.max_tokens;
  if (req.max_completion_tokens !== undefined) fields.maxTokens = req.max_completion_tokens;
  if (req.stop !== undefined) fields.stop = Array.isArray(req.stop) ? req.stop : [req.stop];
  if (req.seed !== undefined) fields.modelKwargs = { seed: req.seed };
  let model = new ChatOpenAI(fields);
  if (Array.isArray(req.tools) && req.tools.length) {
    const options = {};
    if (req.tool_choice !== undefined) options.tool_choice = req.tool_choice;
    if (req.parallel_tool_calls !== undefined) options.parallel_tool_calls = req.parallel_tool_calls;
    model = model.bindTools(req.tools, options);
  }
  const messages = toMessages(req.messages);
  const options = { signal: ctx.signal };
  if (input.mode === 'invoke') return fromMessage(await model.invoke(messages, options));
  let acc;
  for await (const chunk of await model.stream(messages, options)) acc = acc === undefined ? chunk : acc.concat(chunk);
  return fromMessage(acc);
});
