#!/usr/bin/env python3
"""Generate the decode fixtures of the OpenAI Responses decoders.

Usage:  python3 tests/tools/gen_responses_fixtures.py [--check]

Writes tests/data/decode/{openai-responses,openai-responses-stream}/NAME.json, one scenario per
file, following docs/formats/openai-responses.md. Bodies and streams are built here from Python
values and every offset is computed here (never by hand): in a body the offset of the output item
(or of the value) the diagnostic is about, in a stream the offset of the event's first field line.
With --check nothing is written: the script only verifies the files on disk.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_gen  # noqa: E402
from gen_wire_fixtures import Stream, blen, js, loc, render  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "data", "decode"))
BODY, STREAM = "openai-responses", "openai-responses-stream"
FORMATS = (BODY, STREAM)
OPTION_KEYS = ["tools", "max_args_bytes", "max_calls", "max_depth", "max_input_bytes",
               "allow_unknown_tool", "schema_warn"]

CASES = []


def case(fmt, name, description, rule, input, *, content="", thinking="", calls=(), errors=(),
         warnings=(), finish_reason="", signature=None, **options):
    for k in options:
        if k not in OPTION_KEYS:
            raise KeyError("%s/%s: unknown option %s" % (fmt, name, k))
    obj = {"description": description, "rule": rule, "format": fmt}
    opts = {k: options[k] for k in OPTION_KEYS if k in options}
    if opts:
        obj["options"] = opts
    obj["input"] = input
    exp = {"content": content, "thinking": thinking}
    if signature is not None:
        exp["thinking_signature"] = signature
    exp.update({
        "tool_calls": list(calls),
        "finish_reason": finish_reason,
        "errors": [{"code": c, "offset": o} for c, o in errors],
        "warnings": [{"code": c, "offset": o} for c, o in warnings],
    })
    obj["expect"] = exp
    CASES.append((fmt, name, obj))


def C(id_, name, args):
    return {"id": id_, "name": name, "arguments": args}


# ---------------------------------------------------------------- values

def response(output, status="completed", error=None, incomplete=None, usage=True):
    r = {"id": "resp_1", "object": "response", "created_at": 1743082657, "status": status,
         "error": error, "incomplete_details": incomplete, "model": "gpt-4o-2024-08-06",
         "output": output, "parallel_tool_calls": True}
    if usage:
        r["usage"] = {"input_tokens": 20, "output_tokens": 10, "total_tokens": 30}
    return r


def msg_item(*texts, id_="msg_1", refusal=None):
    content = [{"type": "output_text", "text": t, "annotations": []} for t in texts]
    if refusal is not None:
        content.append({"type": "refusal", "refusal": refusal})
    return {"type": "message", "id": id_, "status": "completed", "role": "assistant",
            "content": content}


def call_item(call_id, name, args, id_=None):
    it = {"type": "function_call", "id": id_ or ("fc_" + (call_id or "x")), "name": name,
          "arguments": args, "status": "completed"}
    if call_id is not None:
        it["call_id"] = call_id
    return it


def reasoning_item(summaries, id_="rs_1", encrypted=None):
    it = {"type": "reasoning", "id": id_,
          "summary": [{"type": "summary_text", "text": s} for s in summaries]}
    if encrypted is not None:
        it["encrypted_content"] = encrypted
    return it


def body(r):
    return js(r)


def item_off(text, i):
    return loc(text, "output", i)


# ---------------------------------------------------------------- streams

class RStream(Stream):
    """A Responses event stream: `event:` names the type, sequence numbers count up."""

    def __init__(self, seq=True):
        super().__init__()
        self.seq = 0 if seq else None

    def e(self, type_, event=None, seq=None, **fields):
        d = {"type": type_}
        if self.seq is not None:
            d["sequence_number"] = self.seq if seq is None else seq
            self.seq += 1
        d.update(fields)
        return self.ev(d, event=type_ if event is None else event)

    def start(self):
        r = response([], status="in_progress", usage=False)
        self.e("response.created", response=r)
        return self.e("response.in_progress", response=r)

    def end(self, output, status="completed", kind="response.completed", **kw):
        return self.e(kind, response=response(output, status=status, **kw))

    def message(self, i, *texts, id_="msg_1"):
        self.e("response.output_item.added", output_index=i,
               item={"type": "message", "id": id_, "status": "in_progress", "role": "assistant",
                     "content": []})
        for ci, t in enumerate(texts):
            self.e("response.content_part.added", item_id=id_, output_index=i, content_index=ci,
                   part={"type": "output_text", "text": "", "annotations": []})
            half = len(t) // 2
            for piece in (t[:half], t[half:]):
                if piece:
                    self.e("response.output_text.delta", item_id=id_, output_index=i,
                           content_index=ci, delta=piece)
            self.e("response.output_text.done", item_id=id_, output_index=i, content_index=ci,
                   text=t)
            self.e("response.content_part.done", item_id=id_, output_index=i, content_index=ci,
                   part={"type": "output_text", "text": t, "annotations": []})
        return self.e("response.output_item.done", output_index=i, item=msg_item(*texts, id_=id_))

    def call(self, i, call_id, name, args, pieces=None, done_args=None, id_=None):
        """Returns the offset of the output_item.added event (the call's offset)."""
        id_ = id_ or "fc_" + call_id
        off = self.e("response.output_item.added", output_index=i,
                     item={"type": "function_call", "id": id_, "call_id": call_id, "name": name,
                           "arguments": "", "status": "in_progress"})
        if pieces is None:
            pieces = [args[:len(args) // 2], args[len(args) // 2:]]
        for p in pieces:
            self.e("response.function_call_arguments.delta", item_id=id_, output_index=i, delta=p)
        self.e("response.function_call_arguments.done", item_id=id_, output_index=i,
               arguments=args if done_args is None else done_args)
        self.e("response.output_item.done", output_index=i,
               item=call_item(call_id, name, args if done_args is None else done_args, id_))
        return off


WEATHER = {"name": "get_weather", "description": "Current weather for a city",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                          "required": ["city"]}}
PARIS = '{"city":"Paris"}'
ROME = '{"city":"Rome"}'
BUILTINS = ["web_search_call", "file_search_call", "code_interpreter_call", "computer_call",
            "image_generation_call", "mcp_call", "custom_tool_call"]
WRAPPED = ('{"tool_uses":[{"recipient_name":"functions.get_weather","parameters":{"city":"Paris"}},'
           '{"recipient_name":"functions.get_weather","parameters":{"city":"Rome"}}]}')

# ---------------------------------------------------------------- the response object

R = "openai-responses"

t = body(response([msg_item("The capital of France ", "is Paris.")]))
case(BODY, "message_text", "output_text parts of a message join into content", R + " items", t,
     content="The capital of France is Paris.", finish_reason="stop", errors=[], warnings=[])

t = body(response([call_item("call_1", "get_weather", PARIS)]))
case(BODY, "function_call", "a function_call item: call_id, name, string arguments parsed",
     R + " calls", t, calls=[C("call_1", "get_weather", {"city": "Paris"})],
     finish_reason="tool_calls")

t = body(response([msg_item("Checking both."), call_item("call_1", "get_weather", PARIS),
                   call_item("call_2", "get_weather", ROME)]))
case(BODY, "parallel_calls", "text and two calls, in output order", R + " calls", t,
     content="Checking both.",
     calls=[C("call_1", "get_weather", {"city": "Paris"}), C("call_2", "get_weather", {"city": "Rome"})],
     finish_reason="tool_calls")

t = body(response([reasoning_item(["Need the weather.", "", "Call the tool."], encrypted="gAAAAB-enc"),
                   call_item("call_1", "get_weather", PARIS)]))
case(BODY, "reasoning_summary_signature",
     "reasoning summary parts join with \\n (an empty one adds nothing); encrypted_content is "
     "the thinking signature", R + " reasoning", t,
     thinking="Need the weather.\nCall the tool.", signature="gAAAAB-enc",
     calls=[C("call_1", "get_weather", {"city": "Paris"})], finish_reason="tool_calls")

t = body(response([reasoning_item(["a"], id_="rs_1", encrypted="sig-1"),
                   reasoning_item(["b"], id_="rs_2", encrypted="sig-2"), msg_item("ok")]))
case(BODY, "reasoning_two_signatures", "a second, different encrypted_content is not kept: "
     "not_carried", R + " reasoning", t, content="ok", thinking="a\nb", signature="sig-1",
     finish_reason="stop", warnings=[("not_carried", item_off(t, 1))])

t = body(response([{"type": "reasoning", "id": "rs_1", "summary": [],
                    "content": [{"type": "reasoning_text", "text": "The user wants Paris."}]},
                   msg_item("Paris.")]))
case(BODY, "reasoning_text", "reasoning_text content parts (the full reasoning) are thinking "
     "too", R + " reasoning", t, thinking="The user wants Paris.", content="Paris.",
     finish_reason="stop")

t = body(response([msg_item(refusal="I can't help with that.")]))
case(BODY, "refusal", "a refusal part is the content, with warning refusal and content_filter",
     R + " refusal", t, content="I can't help with that.", finish_reason="content_filter",
     warnings=[("refusal", item_off(t, 0))])

out = [{"type": b, "id": "%s_1" % b.split("_")[0], "status": "completed"} for b in BUILTINS]
out.append(msg_item("Done."))
t = body(response(out))
case(BODY, "builtin_tool_items", "the items of built-in tools are reported (item_not_carried), "
     "not dropped silently", R + " items", t, content="Done.", finish_reason="stop",
     warnings=[("item_not_carried", item_off(t, i)) for i in range(len(BUILTINS))])

t = body(response([{"type": "future_item", "id": "fi_1"}, msg_item("x")]))
case(BODY, "unknown_item_type", "an item of an unknown type is reported as well", R + " items",
     t, content="x", finish_reason="stop", warnings=[("item_not_carried", item_off(t, 0))])

t = body(response([{"type": "message", "id": "m", "role": "assistant",
                    "content": [{"type": "output_audio", "data": "AAA"},
                                {"type": "output_text", "text": "hi"}]}]))
case(BODY, "unknown_content_part", "a content part of another type: not_carried",
     R + " items", t, content="hi", finish_reason="stop",
     warnings=[("not_carried", item_off(t, 0))])

t = body(response([msg_item("The capital")], status="incomplete",
                  incomplete={"reason": "max_output_tokens"}))
case(BODY, "incomplete_max_output_tokens", "status incomplete for max_output_tokens is length",
     R + " status", t, content="The capital", finish_reason="length")

t = body(response([msg_item("")], status="incomplete", incomplete={"reason": "content_filter"}))
case(BODY, "incomplete_content_filter", "status incomplete for content_filter", R + " status", t,
     finish_reason="content_filter")

t = body(response([call_item("call_1", "get_weather", PARIS)], status="incomplete",
                  incomplete={"reason": "max_output_tokens"}))
case(BODY, "incomplete_with_call", "a complete call in an incomplete response is kept; the "
     "finish reason is still length", R + " status", t,
     calls=[C("call_1", "get_weather", {"city": "Paris"})], finish_reason="length")

t = body(response([], status="failed",
                  error={"code": "server_error", "message": "The model failed to respond."}))
case(BODY, "failed", "status failed: the error is response_failed, no finish reason",
     R + " status", t, errors=[("response_failed", loc(t, "error"))])

t = js({"error": {"message": "Invalid 'input': empty.", "type": "invalid_request_error",
                  "param": "input", "code": None}})
case(BODY, "error_envelope", "an error envelope in place of a response", R + " errors", t,
     errors=[("error_response", loc(t, "error"))])

t = body(response([call_item("call_1", "get_weather", '{"city": "Par')]))
case(BODY, "arguments_invalid_json", "arguments that do not parse refuse the call",
     R + " calls", t, finish_reason="stop", errors=[("tool_call_json", item_off(t, 0))])

t = body(response([call_item("call_1", "get_weather", {"city": "Paris"})]))
case(BODY, "arguments_object", "arguments as an object are taken with arguments_as_object",
     R + " calls", t, calls=[C("call_1", "get_weather", {"city": "Paris"})],
     finish_reason="tool_calls", warnings=[("arguments_as_object", item_off(t, 0))])

t = body(response([call_item(None, "get_weather", PARIS, id_="fc_a"),
                   call_item("call_1", "get_weather", ROME)]))
case(BODY, "missing_call_id", "a call without call_id gets call_<n>; a later call_1 is then "
     "made unique", "ids (generated)", t,
     calls=[C("call_1", "get_weather", {"city": "Paris"}), C("call_1__2", "get_weather", {"city": "Rome"})],
     finish_reason="tool_calls", warnings=[("duplicate_id", item_off(t, 1))])

t = body(response([call_item("call_1", "", PARIS)]))
case(BODY, "missing_name", "a call without a name is refused", R + " calls", t,
     finish_reason="stop", errors=[("missing_name", item_off(t, 0))])

t = body(response([call_item("call_1", "get_weather", PARIS), call_item("call_2", "get_stock", "{}")]))
case(BODY, "unknown_tool", "a name the request did not declare is refused", "calls (unknown_tool)",
     t, tools=[WEATHER], calls=[C("call_1", "get_weather", {"city": "Paris"})],
     finish_reason="tool_calls", errors=[("unknown_tool", item_off(t, 1))])

big = '{"city":"' + "x" * 200 + '"}'
t = body(response([call_item("call_1", "get_weather", big)]))
case(BODY, "args_too_large", "arguments past max_args_bytes refuse the call",
     "limits (max_args_bytes)", t, max_args_bytes=100, finish_reason="stop",
     errors=[("args_too_large", item_off(t, 0))])

t = body(response([call_item("call_1", "get_weather", PARIS), call_item("call_2", "get_weather", ROME)]))
case(BODY, "too_many_calls", "a call past max_calls is refused", "limits (max_calls)", t,
     max_calls=1, calls=[C("call_1", "get_weather", {"city": "Paris"})],
     finish_reason="tool_calls", errors=[("too_many_calls", item_off(t, 1))])

t = body(response([call_item("call_p", "parallel", WRAPPED)]))
case(BODY, "parallel_wrapper", "calls wrapped in the pseudo-tool parallel are one call named "
     "parallel, with warning parallel_wrapper", R + " parallel", t,
     calls=[C("call_p", "parallel", json.loads(WRAPPED))], finish_reason="tool_calls",
     warnings=[("parallel_wrapper", item_off(t, 0))])

t = '{"id": "resp_1", "output": [ {"type": cut'
case(BODY, "not_json", "a body that is not JSON: response_json where the parser stopped",
     R + " errors", t, errors=[("response_json", t.encode().find(b"cut"))])

t = js({"id": "resp_1", "object": "response", "status": "completed"})
case(BODY, "no_output", "a response without an output array is response_shape", R + " errors", t,
     errors=[("response_shape", 0)])

# ---------------------------------------------------------------- the event stream

RS = "openai-responses-stream"

s = RStream()
s.start()
s.message(0, "The capital of France ", "is Paris.")
s.end([msg_item("The capital of France ", "is Paris.")])
case(STREAM, "text_deltas", "output_text deltas join into content", RS + " events", s.text,
     content="The capital of France is Paris.", finish_reason="stop", errors=[], warnings=[])

s = RStream()
s.start()
s.call(0, "call_1", "get_weather", PARIS, pieces=['{"ci', 'ty":"Pa', 'ris"}'])
s.end([call_item("call_1", "get_weather", PARIS)])
case(STREAM, "function_call", "argument deltas concatenate; the call is taken at its "
     "output_item.done", RS + " events", s.text,
     calls=[C("call_1", "get_weather", {"city": "Paris"})], finish_reason="tool_calls")

s = RStream()
s.start()
s.message(0, "Checking both.")
s.call(1, "call_1", "get_weather", PARIS)
s.call(2, "call_2", "get_weather", ROME)
s.end([])
case(STREAM, "parallel_calls", "text and two calls", RS + " events", s.text,
     content="Checking both.",
     calls=[C("call_1", "get_weather", {"city": "Paris"}), C("call_2", "get_weather", {"city": "Rome"})],
     finish_reason="tool_calls")

s = RStream()
s.start()
s.e("response.output_item.added", output_index=0, item={"type": "reasoning", "id": "rs_1", "summary": []})
for si, txt in enumerate(["Need the weather.", "Call the tool."]):
    s.e("response.reasoning_summary_part.added", item_id="rs_1", output_index=0, summary_index=si,
        part={"type": "summary_text", "text": ""})
    s.e("response.reasoning_summary_text.delta", item_id="rs_1", output_index=0, summary_index=si,
        delta=txt[:4])
    s.e("response.reasoning_summary_text.delta", item_id="rs_1", output_index=0, summary_index=si,
        delta=txt[4:])
    s.e("response.reasoning_summary_text.done", item_id="rs_1", output_index=0, summary_index=si,
        text=txt)
    s.e("response.reasoning_summary_part.done", item_id="rs_1", output_index=0, summary_index=si,
        part={"type": "summary_text", "text": txt})
s.e("response.output_item.done", output_index=0,
    item=reasoning_item(["Need the weather.", "Call the tool."], encrypted="gAAAAB-enc"))
s.call(1, "call_1", "get_weather", PARIS)
s.end([])
case(STREAM, "reasoning_summary_then_call", "summary parts join with \\n into thinking; the "
     "encrypted_content of output_item.done is the thinking signature", RS + " reasoning",
     s.text, thinking="Need the weather.\nCall the tool.", signature="gAAAAB-enc",
     calls=[C("call_1", "get_weather", {"city": "Paris"})], finish_reason="tool_calls")

s = RStream()
s.start()
s.e("response.output_item.added", output_index=0, item={"type": "reasoning", "id": "rs_1", "summary": []})
s.e("response.content_part.added", item_id="rs_1", output_index=0, content_index=0,
    part={"type": "reasoning_text", "text": ""})
s.e("response.reasoning_text.delta", item_id="rs_1", output_index=0, content_index=0, delta="The user ")
s.e("response.reasoning_text.delta", item_id="rs_1", output_index=0, content_index=0, delta="wants Paris.")
s.e("response.reasoning_text.done", item_id="rs_1", output_index=0, content_index=0,
    text="The user wants Paris.")
s.e("response.output_item.done", output_index=0,
    item={"type": "reasoning", "id": "rs_1", "summary": [],
          "content": [{"type": "reasoning_text", "text": "The user wants Paris."}]})
s.message(1, "Paris.")
s.end([{"type": "reasoning", "id": "rs_1", "summary": [],
        "content": [{"type": "reasoning_text", "text": "The user wants Paris."}]}, msg_item("Paris.")])
case(STREAM, "reasoning_text", "reasoning_text deltas (the full reasoning) are thinking too",
     RS + " reasoning", s.text, thinking="The user wants Paris.", content="Paris.",
     finish_reason="stop")

s = RStream()
s.start()
s.e("response.output_item.added", output_index=0,
    item={"type": "message", "id": "msg_1", "role": "assistant", "content": []})
s.e("response.output_text.delta", item_id="msg_1", output_index=0, content_index=0, delta="a")
bad = s.e("response.output_text.delta", seq=1, item_id="msg_1", output_index=0, content_index=0, delta="b")
s.e("response.output_item.done", output_index=0, item=msg_item("ab"))
s.end([])
case(STREAM, "sequence_number_not_increasing", "a sequence_number not above the previous one "
     "is a warning; the event is still read", RS + " checks", s.text, content="ab",
     finish_reason="stop", warnings=[("sequence_number", bad)])

s = RStream()
s.start()
s.message(0, "Hi.")
bad = s.e("response.output_text.delta", item_id="msg_9", output_index=3, content_index=0, delta="lost")
s.end([])
case(STREAM, "delta_for_unknown_item", "a delta whose output_index names no added item is "
     "stream_item_order; the event is dropped", RS + " checks", s.text, content="Hi.",
     finish_reason="stop", errors=[("stream_item_order", bad)])

s = RStream()
s.start()
s.e("response.output_item.added", output_index=0,
    item={"type": "message", "id": "msg_1", "role": "assistant", "content": []})
s.e("response.output_item.added", output_index=1,
    item={"type": "message", "id": "msg_2", "role": "assistant", "content": []})
bad = s.e("response.output_text.delta", output_index=0.5, content_index=0, delta="half")
s.e("response.output_text.delta", item_id="msg_2", output_index=1, content_index=0, delta="two")
s.end([])
case(STREAM, "output_index_not_integer", "an output_index of 0.5 names no item (never rounded "
     "into a neighbour): stream_item_order, the event dropped", RS + " checks", s.text,
     content="two", finish_reason="stop", errors=[("stream_item_order", bad)])

s = RStream()
s.start()
s.message(0, "Hi.")
bad = s.e("response.output_text.delta", item_id="msg_1", output_index=0, content_index=0, delta="late")
s.end([])
case(STREAM, "delta_after_item_done", "a delta for an item already done is stream_item_order",
     RS + " checks", s.text, content="Hi.", finish_reason="stop",
     errors=[("stream_item_order", bad)])

s = RStream()
s.start()
s.message(0, "Hi.")
bad = s.e("response.output_item.added", output_index=0,
          item={"type": "message", "id": "msg_2", "role": "assistant", "content": []})
s.end([])
case(STREAM, "item_added_twice", "a second output_item.added for one output_index is "
     "stream_item_order", RS + " checks", s.text, content="Hi.", finish_reason="stop",
     errors=[("stream_item_order", bad)])

s = RStream()
s.start()
off = s.e("response.output_item.added", output_index=0,
          item={"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
                "arguments": ""})
s.e("response.function_call_arguments.delta", item_id="fc_1", output_index=0, delta=PARIS)
d1 = s.e("response.function_call_arguments.done", item_id="fc_1", output_index=0, arguments=ROME)
d2 = s.e("response.output_item.done", output_index=0, item=call_item("call_1", "get_weather", ROME, "fc_1"))
s.end([])
case(STREAM, "done_arguments_differ", "a .done value that differs from the deltas is "
     "done_mismatch; the deltas win", RS + " checks", s.text,
     calls=[C("call_1", "get_weather", {"city": "Paris"})], finish_reason="tool_calls",
     warnings=[("done_mismatch", d1), ("done_mismatch", d2)])

s = RStream()
s.start()
s.call(0, "call_1", "get_weather", PARIS, pieces=[])
s.end([])
case(STREAM, "done_without_deltas", "arguments given only by .done are taken", RS + " events",
     s.text, calls=[C("call_1", "get_weather", {"city": "Paris"})], finish_reason="tool_calls")

s = RStream()
s.start()
s.e("response.output_item.added", output_index=0,
    item={"type": "message", "id": "msg_1", "role": "assistant", "content": []})
bad = s.e("response.output_text.delta", event="response.refusal.delta", item_id="msg_1",
          output_index=0, content_index=0, delta="Hi.")
s.e("response.output_item.done", output_index=0, item=msg_item("Hi."))
s.end([])
case(STREAM, "event_name_differs", "an event: name other than the data's type is "
     "event_type_mismatch; the type is followed", RS + " checks", s.text, content="Hi.",
     finish_reason="stop", warnings=[("event_type_mismatch", bad)])

s = RStream()
s.start()
s.e("response.output_item.added", output_index=0,
    item={"type": "message", "id": "msg_1", "role": "assistant", "content": []})
s.e("response.output_text.delta", item_id="msg_1", output_index=0, content_index=0, delta="Par")
case(STREAM, "no_terminal_event", "a stream that ends without a terminal event is "
     "stream_truncated; what came is kept", RS + " checks", s.text, content="Par",
     errors=[("stream_truncated", blen(s.text))])

s = RStream()
s.start()
s.e("response.output_item.added", output_index=0,
    item={"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
          "arguments": ""})
s.e("response.function_call_arguments.delta", item_id="fc_1", output_index=0, delta=PARIS)
case(STREAM, "no_terminal_open_call", "a call still open at the end is taken as streamed; the "
     "stream is stream_truncated", RS + " checks", s.text,
     calls=[C("call_1", "get_weather", {"city": "Paris"})], errors=[("stream_truncated", blen(s.text))])

s = RStream()
s.start()
s.message(0, "The capital")
s.end([msg_item("The capital")], status="incomplete", kind="response.incomplete",
      incomplete={"reason": "max_output_tokens"})
case(STREAM, "incomplete_max_output_tokens", "response.incomplete for max_output_tokens is "
     "length", RS + " status", s.text, content="The capital", finish_reason="length")

s = RStream()
s.start()
s.end([], status="incomplete", kind="response.incomplete", incomplete={"reason": "content_filter"})
case(STREAM, "incomplete_content_filter", "response.incomplete for content_filter",
     RS + " status", s.text, finish_reason="content_filter")

s = RStream()
s.start()
bad = s.end([], status="failed", kind="response.failed",
            error={"code": "server_error", "message": "The model failed to respond."})
case(STREAM, "failed", "response.failed: the error is response_failed", RS + " status", s.text,
     errors=[("response_failed", bad)])

s = RStream()
s.start()
s.message(0, "Par")
bad = s.e("error", code="rate_limit_exceeded", message="Rate limit reached.", param=None)
case(STREAM, "error_event", "an error event is stream_error; the stream ends without a terminal "
     "event", RS + " errors", s.text, content="Par",
     errors=[("stream_error", bad), ("stream_truncated", blen(s.text))])

s = RStream()
s.start()
offs = []
for i, b in enumerate(BUILTINS):
    item = {"type": b, "id": "%s_1" % b.split("_")[0], "status": "in_progress"}
    offs.append(s.e("response.output_item.added", output_index=i, item=item))
    s.e("response.%s.in_progress" % b, output_index=i, item_id=item["id"])
    s.e("response.output_item.done", output_index=i, item=dict(item, status="completed"))
s.message(len(BUILTINS), "Done.")
s.end([])
case(STREAM, "builtin_tool_items", "built-in tool items are reported when added "
     "(item_not_carried); their progress events are read past", RS + " items", s.text,
     content="Done.", finish_reason="stop", warnings=[("item_not_carried", o) for o in offs])

s = RStream()
s.start()
s.e("response.output_item.added", output_index=0,
    item={"type": "message", "id": "msg_1", "role": "assistant", "content": []})
s.e("response.content_part.added", item_id="msg_1", output_index=0, content_index=0,
    part={"type": "refusal", "refusal": ""})
r1 = s.e("response.refusal.delta", item_id="msg_1", output_index=0, content_index=0, delta="I can't ")
s.e("response.refusal.delta", item_id="msg_1", output_index=0, content_index=0, delta="help.")
s.e("response.refusal.done", item_id="msg_1", output_index=0, content_index=0, refusal="I can't help.")
s.e("response.output_item.done", output_index=0, item=msg_item(refusal="I can't help."))
s.end([])
case(STREAM, "refusal", "refusal deltas are the content, with warning refusal and "
     "content_filter", RS + " refusal", s.text, content="I can't help.",
     finish_reason="content_filter", warnings=[("refusal", r1)])

s = RStream()
s.start()
off = s.call(0, "call_1", "get_weather", '{"city": "Par')
s.end([])
case(STREAM, "arguments_invalid_json", "arguments that do not parse refuse the call",
     RS + " calls", s.text, finish_reason="stop", errors=[("tool_call_json", off)])

s = RStream()
s.start()
off = s.call(0, "call_1", "get_weather", big)
s.end([])
case(STREAM, "args_too_large", "arguments past max_args_bytes refuse the call",
     "limits (max_args_bytes)", s.text, max_args_bytes=100, finish_reason="stop",
     errors=[("args_too_large", off)])

s = RStream()
s.start()
s.call(0, "call_1", "get_weather", PARIS)
off = s.call(1, "call_2", "get_weather", ROME)
s.end([])
case(STREAM, "too_many_calls", "a call past max_calls is refused", "limits (max_calls)", s.text,
     max_calls=1, calls=[C("call_1", "get_weather", {"city": "Paris"})],
     finish_reason="tool_calls", errors=[("too_many_calls", off)])

s = RStream()
s.start()
bad = s.ev("{not json", event="response.output_text.delta")
s.message(0, "ok")
s.end([])
case(STREAM, "chunk_json", "an event whose data is not JSON is chunk_json; the stream goes on",
     RS + " errors", s.text, content="ok", finish_reason="stop", errors=[("chunk_json", bad)])

s = RStream()
s.start()
off = s.call(0, "call_p", "parallel", WRAPPED, pieces=[WRAPPED])
s.end([])
case(STREAM, "parallel_wrapper", "calls wrapped in the pseudo-tool parallel: one call named "
     "parallel, with warning parallel_wrapper", RS + " parallel", s.text,
     calls=[C("call_p", "parallel", json.loads(WRAPPED))], finish_reason="tool_calls",
     warnings=[("parallel_wrapper", off)])

s = RStream()
s.start()
s.end([msg_item("Only the final event."), call_item("call_1", "get_weather", PARIS)])
case(STREAM, "final_response_only", "with no item streamed, the output of the final response "
     "is read as a body's", RS + " events", s.text, content="Only the final event.",
     calls=[C("call_1", "get_weather", {"city": "Paris"})], finish_reason="tool_calls")

s = RStream(seq=False)
s.ev({"type": "response.created", "response": response([], status="in_progress", usage=False)})
s.ev({"type": "response.output_item.added", "output_index": 0,
      "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}})
s.ev({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
      "content_index": 0, "delta": "no names"})
s.ev({"type": "response.completed", "response": response([])})
case(STREAM, "no_event_lines", "events without event: lines or sequence numbers are read by "
     "their type", RS + " events", s.text, content="no names", finish_reason="stop")

s = Stream()
t = js({"error": {"message": "Invalid 'input'.", "type": "invalid_request_error", "code": None}})
case(STREAM, "error_body", "an error envelope in place of a stream", RS + " errors", t,
     errors=[("error_response", loc(t, "error"))])


# ---------------------------------------------------------------- checks and output

def sanity(fmt, name, obj):
    where = "%s/%s" % (fmt, name)
    b = obj["input"].encode()
    for kind in ("errors", "warnings"):
        for e in obj["expect"][kind]:
            c, o = e["code"], e["offset"]
            assert 0 <= o <= len(b), where + ": offset out of range"
            if fmt == STREAM and c not in ("stream_truncated", "error_response"):
                ok = o == 0 or b[o - 1:o] in (b"\n", b"\r")
                assert ok and (b.startswith(b"data", o) or b.startswith(b"event", o)), \
                    where + ": %s %s is not at an event" % (kind, c)
    ids = [c["id"] for c in obj["expect"]["tool_calls"]]
    assert len(ids) == len(set(ids)), where + ": duplicate ids"


def main():
    return fixture_gen.run(CASES, OUT, FORMATS, sanity, render)


if __name__ == "__main__":
    sys.exit(main())
