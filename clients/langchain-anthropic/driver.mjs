// Driver for LangChain's Anthropic chat model, `@langchain/anthropic` (docs/clients.md):
// new ChatAnthropic({…}).bindTools(tools, {tool_choice}) then .invoke(messages) (mode "invoke") or
// .stream(messages) with the chunks joined by chunk.concat (mode "stream"). The request is
// Anthropic-shape; tools keep their input_schema; the tool calls are the message's tool_calls
// followed by its invalid_tool_calls, as LangChain hands them over.
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { DriverInputError, fromLangChainCalls, main, packageVersion } from '../lib/protocol.mjs';

const DESCRIBE = {
  client: 'langchain-anthropic', version: packageVersion('@langchain/anthropic'), endpoint: 'anthropic', modes: ['invoke', 'stream'],
};

function blocksOf(c) {
  if (typeof c === 'string') return [{ type: 'text', text: c }];
  if (Array.isArray(c)) return c;
  return [];
}

// Anthropic-shape messages as LangChain messages: tool_result blocks become ToolMessages (in
// their order, before the user's other blocks), tool_use blocks the AIMessage's tool_calls.
function toMessages(system, messages) {
  const out = [];
  if (system !== undefined) out.push(new SystemMessage({ content: typeof system === 'string' ? system : blocksOf(system) }));
  for (const [i, m] of messages.entries()) {
    const blocks = blocksOf(m?.content);
    if (m?.role === 'user') {
      const rest = [];
      for (const b of blocks) {
        if (b?.type === 'tool_result') {
          out.push(new ToolMessage({
            content: b.content ?? '', tool_call_id: b.tool_use_id, ...(b.is_error ? { status: 'error' } : {}),
          }));
        } else {
          rest.push(b);
        }
      }
      if (rest.length) out.push(new HumanMessage({ content: typeof m.content === 'string' ? m.content : rest }));
    } else if (m?.role === 'assistant') {
      const toolCalls = blocks.filter((b) => b?.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, args: b.input ?? {}, type: 'tool_call' }));
      const other = blocks.filter((b) => b?.type !== 'tool_use');
      const content = other.every((b) => b?.type === 'text') ? other.map((b) => b.text).join('') : other;
      out.push(new AIMessage({ content, tool_calls: toolCalls }));
    } else {
      throw new DriverInputError(`messages[${i}]: role ${JSON.stringify(m?.role)} has no LangChain message type`);
    }
  }
  return out;
}

function fromMessage(m) {
  const blocks = Array.isArray(m?.content) ? m.content : [];
  const thinking = blocks.filter((b) => b?.type === 'thinking');
  const content = typeof m?.content === 'string'
    ? m.content
    : blocks.filter((b) => b?.type === 'text' && typeof b.text === 'string').map((b) => b.text).join('');
  const meta = m?.response_metadata ?? {};
  return {
    content,
    reasoning: thinking.length ? thinking.map((b) => b.thinking ?? '').join('') : null,
    tool_calls: fromLangChainCalls(m),
    finish_reason: meta.stop_reason ?? m?.additional_kwargs?.stop_reason ?? null,
  };
}

await main(DESCRIBE, async (input, ctx) => {
  const req = input.request;
  const fields = {
    model: req.model, apiKey: 'sk-toolwire-driver', anthropicApiUrl: input.base_url,
    clientOptions: { fetch: ctx.fetch, defaultHeaders: ctx.headers, timeout: ctx.timeoutMs },
  };
  if (req.max_tokens !== undefined) fields.maxTokens = req.max_tokens;
  if (req.temperature !== undefined) fields.temperature = req.temperature;
  if (req.top_p !== undefined) fields.topP = req.top_p;
  if (req.top_k !== undefined) fields.topK = req.top_k;
  if (req.stop_sequences !== undefined) fields.stopSequences = req.stop_sequences;
  if (req.thinking !== undefined) fields.thinking = req.thinking;
  let model = new ChatAnthropic(fields);
  if (Array.isArray(req.tools) && req.tools.length) {
    model = model.bindTools(req.tools, req.tool_choice !== undefined ? { tool_choice: req.tool_choice } : {});
  }
  const messages = toMessages(req.system, req.messages);
  const options = { signal: ctx.signal };
  if (input.mode === 'invoke') return fromMessage(await model.invoke(messages, options));
  let acc;
  for await (const chunk of await model.stream(messages, options)) acc = acc === undefined ? chunk : acc.concat(chunk);
  return fromMessage(acc);
});
