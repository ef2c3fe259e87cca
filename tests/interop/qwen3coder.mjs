// The official `openai` SDK against `toolwire serve --profile qwen3-coder fixtures/qwen3-coder`:
// the model text of each fixture holds Qwen3-Coder XML tool calls, decoded by the reference
// qwen3-coder decoder with the request's tools and answered as OpenAI chat completions. What the
// SDK hands its caller must carry typed arguments: integers and numbers as JSON numbers, a string
// that looks like a number ("007") as a string, non-streamed and streamed alike.
import OpenAI from 'openai';
import {
  capturingFetch, check, checkEqual, checkResult, checkSentBody, clone, exchange, expectLogged,
  neutralFromOpenAI, baseURL, run,
} from './lib.mjs';

const sdk = new OpenAI({
  baseURL: baseURL('qwen3coder', '/v1'), apiKey: 'test', maxRetries: 0, timeout: 15000,
  fetch: capturingFetch,
});
const opts = (name, index) => ({ headers: { 'X-Toolwire-Exchange': `${name}#${index}` } });

// Streamed deltas merged by index, as the SDK's docs show.
async function mergeStream(stream) {
  let content = '';
  let thinking = '';
  let finish = null;
  const calls = [];
  for await (const chunk of stream) {
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
    content, thinking, finish_reason: finish,
    tool_calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: JSON.parse(c.arguments) })),
  };
}

// The typed arguments of qwen3-coder/ref_typed_parameters: transfer(account_id, amount) and
// lookup_order(order_id "007", limit 3).
function checkTyped(label, result) {
  const [t, l] = result.tool_calls;
  checkEqual(`${label}: call names`, result.tool_calls.map((c) => c.name), ['transfer', 'lookup_order']);
  check(`${label}: account_id is a number`, typeof t?.arguments?.account_id === 'number', JSON.stringify(t?.arguments));
  checkEqual(`${label}: amount`, t?.arguments?.amount, 10.5);
  checkEqual(`${label}: order_id stays the string "007"`, l?.arguments?.order_id, '007');
  checkEqual(`${label}: limit is the integer 3`, l?.arguments?.limit, 3);
  check(`${label}: distinct call ids`, t?.id && l?.id && t.id !== l.id);
}

async function nonstream(name, index) {
  const ex = exchange(name, index);
  const completion = await sdk.chat.completions.create(clone(ex.request.body), opts(name, index));
  expectLogged('qwen3coder', name, index);
  checkSentBody(`${name}#${index}`, ex.request.body, { exact: true });
  checkEqual(`${name}#${index}: object`, completion.object, 'chat.completion');
  const got = neutralFromOpenAI(completion);
  checkResult(`${name}#${index}`, got, ex.expect.result);
  return got;
}

async function streamed(name, index) {
  const ex = exchange(name, index);
  const stream = await sdk.chat.completions.create(clone(ex.request.body), opts(name, index));
  expectLogged('qwen3coder', name, index);
  checkSentBody(`${name}#${index}`, ex.request.body, { exact: true });
  const merged = await mergeStream(stream);
  checkResult(`${name}#${index} (merged deltas)`, merged, ex.expect.result);
  const final = await sdk.chat.completions.stream(clone(ex.request.body), opts(name, index)).finalChatCompletion();
  expectLogged('qwen3coder', name, index);
  const got = neutralFromOpenAI(final);
  checkResult(`${name}#${index} (finalChatCompletion)`, got, ex.expect.result);
  return { merged, final: got };
}

await run('qwen3coder', [
  ['non-streamed: typed parameters (qwen3-coder/ref_typed_parameters#0)', async () => {
    checkTyped('non-streamed', await nonstream('qwen3-coder/ref_typed_parameters', 0));
  }],

  ['streamed: typed parameters (qwen3-coder/ref_typed_parameters#1)', async () => {
    const { merged, final } = await streamed('qwen3-coder/ref_typed_parameters', 1);
    checkTyped('streamed, merged deltas', merged);
    checkTyped('streamed, finalChatCompletion', final);
  }],

  ['non-streamed: reasoning, text and a call (qwen3-coder/ref_think_then_call#0)', async () => {
    const got = await nonstream('qwen3-coder/ref_think_then_call', 0);
    checkEqual('think then call: arguments', got.tool_calls[0]?.arguments, { city: 'Paris', unit: 'c' });
    check('think then call: reasoning apart from content', got.thinking.length > 0 && !got.content.includes('<'));
  }],

  ['streamed: two calls (qwen3-coder/ref_two_calls#1)', async () => {
    const { merged } = await streamed('qwen3-coder/ref_two_calls', 1);
    checkEqual('two calls: arguments', merged.tool_calls.map((c) => c.arguments),
      [{ city: 'Paris', unit: 'c' }, { tz: 'Europe/Paris' }]);
    checkEqual('two calls: finish_reason', merged.finish_reason, 'tool_calls');
  }],
]);
