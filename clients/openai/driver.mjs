#!/usr/bin/env node
// toolwire client driver (docs/clients.md) for the official `openai` SDK:
// mode "create" is client.chat.completions.create(), mode "stream" the stream
// helper client.chat.completions.stream(...).finalChatCompletion().
import OpenAI from 'openai';
import { VERSION } from 'openai/version';

const MODES = ['create', 'stream'];

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

function neutral(completion) {
  const choice = completion?.choices?.[0] ?? {};
  const m = choice.message ?? {};
  return {
    content: m.content ?? '',
    reasoning: m.reasoning_content ?? m.reasoning ?? null,
    tool_calls: (m.tool_calls ?? []).map((tc) => ({
      id: tc.id ?? null,
      name: tc.function?.name ?? null,
      arguments: tc.function?.parsed_arguments ?? tc.function?.arguments ?? null,
    })),
    finish_reason: choice.finish_reason ?? null,
  };
}

async function run(input) {
  if (input.protocol !== 1 || !MODES.includes(input.mode) || typeof input.base_url !== 'string') {
    throw new Error(`bad input: protocol ${input.protocol}, mode ${input.mode}`);
  }
  let requests = 0;
  const client = new OpenAI({
    apiKey: 'unused-driver-key',
    baseURL: `${input.base_url}/v1`,
    timeout: input.timeout_ms ?? 20000,
    defaultHeaders: input.headers ?? {},
    fetch: (url, init) => {
      requests++;
      return fetch(url, init);
    },
  });
  const body = { ...input.request };
  delete body.stream;
  delete body.stream_options;
  let out;
  try {
    const completion =
      input.mode === 'create'
        ? await client.chat.completions.create({ ...body, stream: false })
        : await client.chat.completions.stream(body).finalChatCompletion();
    out = { ...neutral(completion), error: null };
  } catch (e) {
    out = {
      content: null,
      reasoning: null,
      tool_calls: [],
      finish_reason: null,
      error: { type: e?.constructor?.name ?? 'Error', message: String(e?.message ?? e), status: e?.status ?? null },
    };
  }
  out.requests = requests;
  return out;
}

const arg = process.argv[2];
if (arg === '--describe') {
  console.log(JSON.stringify({ protocol: 1, client: 'openai', version: VERSION, endpoint: 'openai', modes: MODES }));
} else if (arg === '--run') {
  try {
    const out = await run(JSON.parse(await readStdin()));
    process.stdout.write(JSON.stringify(out) + '\n');
  } catch (e) {
    console.error(`driver: ${e?.stack ?? e}`);
    process.exit(1);
  }
} else {
  console.error('usage: driver.mjs --describe | --run < input.json');
  process.exit(2);
}
