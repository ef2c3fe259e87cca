// Driver for the official Anthropic SDK, `@anthropic-ai/sdk` (docs/clients.md): the request body
// goes to messages.create (mode "create") or messages.stream(…).finalMessage() (mode "stream").
import Anthropic from '@anthropic-ai/sdk';
import { main, packageVersion } from '../lib/protocol.mjs';

const DESCRIBE = {
  client: 'anthropic', version: packageVersion('@anthropic-ai/sdk'), endpoint: 'anthropic', modes: ['create', 'stream'],
};

// The neutral result of a Message: text blocks joined, thinking blocks joined, tool_use blocks.
function fromMessage(m) {
  const blocks = Array.isArray(m?.content) ? m.content : [];
  const thinking = blocks.filter((b) => b.type === 'thinking');
  return {
    content: blocks.filter((b) => b.type === 'text').map((b) => b.text).join(''),
    reasoning: thinking.length ? thinking.map((b) => b.thinking).join('') : null,
    tool_calls: blocks.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, arguments: b.input })),
    finish_reason: m?.stop_reason ?? null,
  };
}

await main(DESCRIBE, async (input, ctx) => {
  const client = new Anthropic({
    baseURL: input.base_url, apiKey: 'sk-toolwire-driver', defaultHeaders: ctx.headers, fetch: ctx.fetch,
    timeout: ctx.timeoutMs,
  });
  const { stream: _ignored, ...body } = input.request;   // the mode decides
  const options = { signal: ctx.signal };
  const message = input.mode === 'stream'
    ? await client.messages.stream(body, options).finalMessage()
    : await client.messages.create(body, options);
  return fromMessage(message);
});
