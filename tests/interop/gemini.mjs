// Google's `@google/genai` SDK against `toolwire serve`, reached by URL (httpOptions.baseUrl):
// ai.models.generateContent and generateContentStream with functionDeclarations, against the
// scripted reference model (serve --profile script), against the replayed fixtures/gemini and
// against an injected 503. What the SDK parses — functionCalls, args, text, the thought
// signature, the ApiError of a fault — is compared with what the fixture or the script says.
import { ApiError, GoogleGenAI } from '@google/genai';
import { baseURL, capturingFetch, check, checkEqual, exchange, run, sent } from './lib.mjs';

const client = (server, extra = {}) => new GoogleGenAI({
  apiKey: 'test-key',
  httpOptions: { baseUrl: baseURL(server), timeout: 15000, retryOptions: { attempts: 1 }, fetch: capturingFetch, ...extra },
});
const named = (name, index = 0) => ({ headers: { 'X-Toolwire-Exchange': `${name}#${index}` } });

// The fixture's request as the SDK's parameters: model from the path, contents, tools, config.
function params(name, byName = true) {
  const x = exchange(`gemini/${name}`);
  const model = /models\/([^:]+):/.exec(x.request.path)[1];
  const b = x.request.body;
  const config = { tools: b.tools };
  if (byName) config.httpOptions = named(`gemini/${name}`);
  if (b.generationConfig?.thinkingConfig) config.thinkingConfig = b.generationConfig.thinkingConfig;
  return { model, contents: b.contents, config };
}

// Every part of the fixture's answer (a body or the events of a stream), in order.
function fixtureParts(name) {
  const r = exchange(`gemini/${name}`).response;
  const bodies = r.events ? r.events.map((e) => e.data) : [r.body];
  return bodies.flatMap((b) => b.candidates?.[0]?.content?.parts ?? []);
}
const callsOf = (parts) => parts.filter((p) => p.functionCall).map((p) => ({ name: p.functionCall.name, args: p.functionCall.args }));
const textOf = (parts) => parts.filter((p) => typeof p.text === 'string' && !p.thought).map((p) => p.text).join('');
const signatureOf = (parts) => parts.find((p) => p.functionCall)?.thoughtSignature;

// The SDK's URL: @google/genai 3 sends /v1/models/M:…, which the mock matches to a fixture
// recorded under /v1beta/ (docs/harness.md, matching).
const sdkPath = (path) => path.replace(/^\/v1beta\//, '/v1/');
function checkSent(label, path) {
  const last = sent[sent.length - 1];
  check(`${label}: request sent`, !!last);
  if (!last) return;
  checkEqual(`${label}: URL path`, new URL(last.url).pathname + new URL(last.url).search, sdkPath(path));
  checkEqual(`${label}: x-goog-api-key`, last.headers['x-goog-api-key'], 'test-key');
}

// A whole answer: functionCalls, text and the signature the SDK parsed, as the fixture has them.
async function replayBody(name, byName = true) {
  const r = await client('gemini').models.generateContent(params(name, byName));
  const parts = fixtureParts(name);
  checkSent(name, exchange(`gemini/${name}`).request.path);
  checkEqual(`${name}: functionCalls`, (r.functionCalls ?? []).map((c) => ({ name: c.name, args: c.args })), callsOf(parts));
  checkEqual(`${name}: text`, r.text ?? '', textOf(parts));
  checkEqual(`${name}: thoughtSignature`, r.candidates?.[0]?.content?.parts?.find((p) => p.functionCall)?.thoughtSignature,
    signatureOf(parts));
  return r;
}

// A stream: the chunks gathered as an application would.
async function replayStream(name) {
  const s = await client('gemini').models.generateContentStream(params(name));
  const calls = [];
  const signatures = [];
  let text = '';
  let finish;
  for await (const chunk of s) {
    for (const c of chunk.functionCalls ?? []) calls.push({ name: c.name, args: c.args });
    for (const p of chunk.candidates?.[0]?.content?.parts ?? []) if (p.thoughtSignature) signatures.push(p.thoughtSignature);
    if (typeof chunk.text === 'string') text += chunk.text;
    finish = chunk.candidates?.[0]?.finishReason ?? finish;
  }
  const parts = fixtureParts(name);
  checkSent(name, exchange(`gemini/${name}`).request.path);
  checkEqual(`${name}: functionCalls`, calls, callsOf(parts));
  checkEqual(`${name}: text`, text, textOf(parts));
  checkEqual(`${name}: thoughtSignature`, signatures[0], signatureOf(parts));
  checkEqual(`${name}: finishReason`, finish, 'STOP');
}

const TOOLS = [{ functionDeclarations: [{
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' }, unit: { type: 'STRING', enum: ['c', 'f'] } }, required: ['city', 'unit'] },
}] }];
const ARGS = { city: 'Paris', unit: 'c' };
const DIRECTIVE = 'What is the weather in Paris? toolwire-script ' + JSON.stringify({
  nonce: 'interop-gemini-1',
  steps: [{ calls: [{ name: 'get_weather', arguments: ARGS }] }, { text: 'It is 18 C in Paris.' }],
});
const user = (text) => ({ role: 'user', parts: [{ text }] });

await run('gemini', [
  ['replay: generateContent, a functionCall', () => replayBody('response_function_call')],
  ['replay: generateContent, a thought summary and a signed call', () => replayBody('response_thought_signature')],
  ['replay: generateContent, parallel calls', () => replayBody('response_parallel_calls')],
  ['replay: generateContent, text only', () => replayBody('response_text_only')],
  // matched by its body alone: the SDK adds "generationConfig": {} (docs/harness.md, matching)
  ['replay: generateContent matched by body, no exchange named', () => replayBody('response_prompt_blocked', false)],
  ['replay: generateContentStream, a signed call', () => replayStream('stream_function_call')],
  ['replay: generateContentStream, text', () => replayStream('stream_text')],
  ['replay: no exchange matches: a 404 in the Gemini envelope', async () => {
    try {
      await client('gemini').models.generateContent({ model: 'gemini-2.5-flash', contents: [user('nothing recorded')] });
      check('404: the SDK throws', false);
    } catch (e) {
      check('404: ApiError', e instanceof ApiError, String(e));
      checkEqual('404: status', e.status, 404);
      const body = JSON.parse(e.message);
      checkEqual('404: error.code', body.error?.code, 404);
      checkEqual('404: error.status', body.error?.status, 'NOT_FOUND');
      check('404: error.message', typeof body.error?.message === 'string' && body.error.message.length > 0);
    }
  }],
  ['fault: an injected 503 is UNAVAILABLE, then the retry gets the answer', async () => {
    const p = params('response_function_call');
    try {
      await client('geminifault').models.generateContent(p);
      check('503: the SDK throws', false);
    } catch (e) {
      check('503: ApiError', e instanceof ApiError, String(e));
      checkEqual('503: status', e.status, 503);
      const body = JSON.parse(e.message);
      checkEqual('503: error.code', body.error?.code, 503);
      checkEqual('503: error.status', body.error?.status, 'UNAVAILABLE');
    }
    // the SDK's own retry: the fault alternates, so the second attempt is answered
    const r = await client('geminifault', { retryOptions: { attempts: 2, initialDelay: 0.05 } }).models.generateContent(p);
    checkEqual('503 retried: functionCalls', (r.functionCalls ?? []).map((c) => ({ name: c.name, args: c.args })),
      callsOf(fixtureParts('response_function_call')));
  }],
  ['script: generateContent, the scripted call', async () => {
    const r = await client('script').models.generateContent({ model: 'scripted', contents: [user(DIRECTIVE)], config: { tools: TOOLS } });
    checkSent('script', '/v1beta/models/scripted:generateContent');
    checkEqual('script: functionCalls', (r.functionCalls ?? []).map((c) => ({ name: c.name, args: c.args })), [{ name: 'get_weather', args: ARGS }]);
    const sig = r.candidates?.[0]?.content?.parts?.find((p) => p.functionCall)?.thoughtSignature;
    check('script: the call is signed', typeof sig === 'string' && sig.length > 0, String(sig));
    checkEqual('script: finishReason', r.candidates?.[0]?.finishReason, 'STOP');
  }],
  ['script: generateContentStream, the call, then the result round trip', async () => {
    const ai = client('script');
    const s = await ai.models.generateContentStream({ model: 'scripted', contents: [user(DIRECTIVE)], config: { tools: TOOLS } });
    const parts = [];
    for await (const chunk of s) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    checkSent('script stream', '/v1beta/models/scripted:streamGenerateContent?alt=sse');
    const callPart = parts.find((p) => p.functionCall);
    checkEqual('script stream: functionCall', callPart && { name: callPart.functionCall.name, args: callPart.functionCall.args },
      { name: 'get_weather', args: ARGS });
    check('script stream: the call is signed', typeof callPart?.thoughtSignature === 'string' && callPart.thoughtSignature.length > 0);
    // the model turn goes back as the SDK gave it (signature included), with the function response
    const r = await ai.models.generateContent({
      model: 'scripted',
      contents: [user(DIRECTIVE), { role: 'model', parts: [callPart] },
        { role: 'user', parts: [{ functionResponse: { id: callPart?.functionCall?.id, name: 'get_weather', response: { result: '18 C' } } }] }],
      config: { tools: TOOLS },
    });
    const back = sent[sent.length - 1].body.contents[1].parts[0];
    checkEqual('script round trip: signature sent back', back.thoughtSignature, callPart?.thoughtSignature);
    checkEqual('script round trip: text', r.text, 'It is 18 C in Paris.');
    checkEqual('script round trip: no call', r.functionCalls ?? [], []);
  }],
]);
