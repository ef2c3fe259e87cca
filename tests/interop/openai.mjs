// The official `openai` SDK against `toolwire serve`: the replay profile (recorded
// responses of fixtures/openai/) and the hermes profile (model text decoded by the reference
// decoder and encoded by the reference OpenAI encoders). Every request names its exchange in
// X-Toolwire-Exchange (several fixtures share a request body); the body the SDK sent is
// compared with the fixture's, and what the SDK returns with the fixture's expect.result.
import OpenAI from 'openai';
import {
  capturingFetch, check, checkEqual, checkResult, checkSentBody, clone, exchange, expectLogged,
  neutralFromOpenAI, baseURL, run,
} from './lib.mjs';

function client(profile) {
  return new OpenAI({
    baseURL: baseURL(profile, '/v1'), apiKey: 'test', maxRetries: 0, timeout: 15000,
    fetch: capturingFetch,
  });
}

const replay = client('replay');
const hermes = client('hermes');
const opts = (name, index = 0) => ({ headers: { 'X-Toolwire-Exchange': `${name}#${index}` } });

// A streamed completion merged by hand, as the SDK's docs show: content deltas appended, tool
// call deltas merged by index (the first fragment brings id and name, later ones arguments).
async function mergeStream(stream) {
  let content = '';
  let thinking = '';
  let finish = null;
  const calls = [];
  let usageChunks = 0;
  for await (const chunk of stream) {
    if (chunk.choices.length === 0 && chunk.usage) usageChunks++;
    for (const choice of chunk.choices) {
      const d = choice.delta ?? {};
      if (typeof d.content === 'string') content += d.content;
      if (typeof d.reasoning_content === 'string') thinking += d.reasoning_content;
      for (const tc of d.tool_calls ?? []) {
        if (!calls[tc.index]) calls[tc.index] = { id: tc.id, name: tc.function?.name ?? '', arguments: '' };
        calls[tc.index].arguments += tc.function?.arguments ?? '';
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  return {
    result: {
      content, thinking, finish_reason: finish,
      tool_calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: JSON.parse(c.arguments) })),
    },
    usageChunks,
  };
}

async function nonstream(name, sdk = replay, server = 'replay') {
  const ex = exchange(name);
  const completion = await sdk.chat.completions.create(clone(ex.request.body), opts(name));
  expectLogged(server, name, 0);
  checkSentBody(name, ex.request.body, { exact: true });
  checkEqual(`${name}: object`, completion.object, 'chat.completion');
  checkResult(name, neutralFromOpenAI(completion), ex.expect?.result);
  return completion;
}

await run('openai', [
  ['non-streamed tool call (openai/nonstream_single_call)', () => nonstream('openai/nonstream_single_call')],
  ['non-streamed parallel calls (openai/nonstream_parallel_calls)', () => nonstream('openai/nonstream_parallel_calls')],
  ['reasoning_content next to calls (openai/nonstream_reasoning_content)', () => nonstream('openai/nonstream_reasoning_content')],

  ['streamed parallel calls merged by index (openai/stream_parallel_usage_chunk)', async () => {
    const name = 'openai/stream_parallel_usage_chunk';
    const ex = exchange(name);
    const stream = await replay.chat.completions.create(clone(ex.request.body), opts(name));
    expectLogged('replay', name, 0);
    checkSentBody(name, ex.request.body, { exact: true });
    const { result, usageChunks } = await mergeStream(stream);
    checkResult(`${name} (merged deltas)`, result, ex.expect.result);
    checkEqual(`${name}: usage chunks after the finish chunk`, usageChunks, 1);
  }],

  ['streamed parallel calls through the stream helper (openai/stream_parallel_usage_chunk)', async () => {
    const name = 'openai/stream_parallel_usage_chunk';
    const ex = exchange(name);
    const body = clone(ex.request.body);
    delete body.stream;
    const final = await replay.chat.completions.stream(body, opts(name)).finalChatCompletion();
    expectLogged('replay', name, 0);
    checkSentBody(name, ex.request.body);
    checkResult(`${name} (finalChatCompletion)`, neutralFromOpenAI(final), ex.expect.result);
    checkEqual(`${name}: usage`, final.usage?.total_tokens, 30);
  }],

  ['stream equals non-stream (openai/stream_equals_nonstream)', async () => {
    const name = 'openai/stream_equals_nonstream';
    const ex0 = exchange(name, 0);
    const ex1 = exchange(name, 1);
    const msg = await replay.chat.completions.create(clone(ex0.request.body), opts(name, 0));
    expectLogged('replay', name, 0);
    checkResult(`${name}#0`, neutralFromOpenAI(msg), ex0.expect.result);
    const final = await replay.chat.completions.stream(clone(ex1.request.body), opts(name, 1)).finalChatCompletion();
    expectLogged('replay', name, 1);
    checkSentBody(`${name}#1`, ex1.request.body);
    checkResult(`${name}#1`, neutralFromOpenAI(final), ex1.expect.result);
  }],

  ['multi-turn loop with a tool result (openai/multi_turn_tool_loop)', async () => {
    const name = 'openai/multi_turn_tool_loop';
    const ex0 = exchange(name, 0);
    const ex1 = exchange(name, 1);
    const body = clone(ex0.request.body);
    const first = await replay.chat.completions.create(body, opts(name, 0));
    expectLogged('replay', name, 0);
    checkResult(`${name}#0`, neutralFromOpenAI(first), ex0.expect.result);
    // The next turn is built from what the SDK returned, as an agent loop does.
    const assistant = first.choices[0].message;
    const toolResult = ex1.request.body.messages.find((m) => m.role === 'tool');
    const messages = [...body.messages, assistant,
      ...assistant.tool_calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: toolResult.content }))];
    const second = await replay.chat.completions.create({ ...body, messages }, opts(name, 1));
    expectLogged('replay', name, 1);
    checkSentBody(`${name}#1 (built from the SDK's message)`, ex1.request.body, { exact: true });
    checkResult(`${name}#1`, neutralFromOpenAI(second), ex1.expect.result);
  }],

  ['hermes profile, non-streamed: reasoning, text and a call (hermes/think_then_call)', () =>
    nonstream('hermes/think_then_call', hermes, 'hermes')],

  ['hermes profile, streamed: two calls (hermes/two_blocks)', async () => {
    const name = 'hermes/two_blocks';
    const ex = exchange(name);
    const stream = await hermes.chat.completions.create({ ...clone(ex.request.body), stream: true }, opts(name));
    expectLogged('hermes', name, 0);
    checkSentBody(name, ex.request.body);
    const { result } = await mergeStream(stream);
    checkResult(`${name} (merged deltas)`, result, ex.expect.result);
    const final = await hermes.chat.completions.stream(clone(ex.request.body), opts(name)).finalChatCompletion();
    expectLogged('hermes', name, 0);
    checkResult(`${name} (finalChatCompletion)`, neutralFromOpenAI(final), ex.expect.result);
  }],

  ['hermes profile, streamed reasoning (hermes/think_then_call)', async () => {
    const name = 'hermes/think_then_call';
    const ex = exchange(name);
    const stream = await hermes.chat.completions.create({ ...clone(ex.request.body), stream: true }, opts(name));
    expectLogged('hermes', name, 0);
    const { result } = await mergeStream(stream);
    checkResult(`${name} (merged deltas)`, result, ex.expect.result);
    check(`${name}: non-empty reasoning`, result.thinking.length > 0);
    const final = await hermes.chat.completions.stream(clone(ex.request.body), opts(name)).finalChatCompletion();
    expectLogged('hermes', name, 0);
    checkResult(`${name} (finalChatCompletion)`, neutralFromOpenAI(final), ex.expect.result);
  }],
]);
