#!/usr/bin/env python3
"""Expected outputs of chat templates, rendered by transformers' own apply_chat_template.

Reads a rows file (JSONL, one {"key": ..., "row": {"messages": [...], "tools": [...] | null}}
per line: the OpenAI-style rows midpack passes to a chat template, as written by
scripts/build-chat-template-rows.ts) and renders every row with every .jinja template of a
folder, with what midpack passes: tools, add_generation_prompt=False, the bos/eos tokens of
settings.json, and strftime_now answering for midpack's fixed date (26 July 2024). A template
listed with "json_arguments" gets each call's arguments as json.dumps(arguments,
ensure_ascii=False), as its users pass them. Writes {template: {key: {"sha256", "bytes"[, "text"]}
or {"error": message}}}: the full text for keys starting with --text-prefix, a hash for the rest.

  pip install transformers jinja2   (no torch needed)
  python3 scripts/render_chat_templates.py ROWS --templates DIR --settings settings.json --out expected.json

With --turns faithful: for each assistant message i of a row, the text of turn i as midpack's
`--turns faithful` trains it, from transformers' renders alone:

    G = apply_chat_template(messages[:i], add_generation_prompt=True)
    F = apply_chat_template(messages[:i + 1])
    T, the turn as the model writes it: F less G when F begins with G; else, from a probe with only
      the conversation's opening (its system messages and first user message) before the turn,
      Y = apply(opening + [message i]), Y0 = apply(opening, add_generation_prompt=True):
      Y less Y0, or, where Y leaves Y0 inside the generation prompt, Y from the last newline they
      share. F must end with T.
    expected = G + T      {"turns": [{"message": i, "start": len(G), "bytes", "sha256"[, "text"]}]}

(the rule of src/stages/trajectories/jinja/turns.ts).

  python3 scripts/render_chat_templates.py ROWS ... --turns faithful --out faithful.json
"""
import argparse
import copy
import datetime
import hashlib
import json
import os
import sys

from transformers import PreTrainedTokenizerFast

def with_json_arguments(row):
    row = copy.deepcopy(row)
    for m in row["messages"]:
        for c in m.get("tool_calls") or []:
            c["function"]["arguments"] = json.dumps(c["function"]["arguments"], ensure_ascii=False)
    return row


def common_prefix(a, b):
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def opening(messages, i):
    for k in range(i):
        if messages[k]["role"] == "user":
            return k + 1
    k = 0
    while k < i and messages[k]["role"] == "system":
        k += 1
    return k


def turn_text(render, messages, i, G, F):
    if F.startswith(G):
        return F[len(G):]
    n = opening(messages, i)
    if n < i:
        Y0, Y = render(messages[:n], True), render(messages[:n] + [messages[i]], False)
    else:
        Y0, Y = G, F
    if Y.startswith(Y0):
        T = Y[len(Y0):]
    else:
        T = Y[Y0.rfind("\n", 0, common_prefix(Y0, Y)) + 1:]
    if not F.endswith(T):
        raise ValueError(f"assistant message {i}: its text is not the end of the render up to it")
    return T


def whole_result(render, messages, key, a):
    text = render(messages, False)
    b = text.encode("utf-8")
    res = {"sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)}
    if key.startswith(a.text_prefix):
        res["text"] = text
    return res


def faithful_result(render, messages, key, a):
    render(messages, False)
    turns = []
    for i, m in enumerate(messages):
        if m["role"] != "assistant":
            continue
        G = render(messages[:i], True)
        text = G + turn_text(render, messages, i, G, render(messages[:i + 1], False))
        b = text.encode("utf-8")
        t = {"message": i, "start": len(G), "bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()}
        if key.startswith(a.text_prefix):
            t["text"] = text
        turns.append(t)
    return {"turns": turns}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rows")
    ap.add_argument("--templates", required=True)
    ap.add_argument("--settings", required=True)
    ap.add_argument("--tokenizer", required=True, help="a tokenizer.json with no special-token settings (midpack's Qwen3)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--text-prefix", default="stress")
    ap.add_argument("--date", default="2024-07-26", help="the date strftime_now answers for (midpack's --template-date)")
    ap.add_argument("--turns", choices=["whole", "faithful"], default="whole", help="whole: the row's render; faithful: each assistant turn in its context")
    a = ap.parse_args()
    result = faithful_result if a.turns == "faithful" else whole_result
    date = datetime.datetime.strptime(a.date, "%Y-%m-%d")
    settings = json.load(open(a.settings, encoding="utf-8"))
    rows = [json.loads(line) for line in open(a.rows, encoding="utf-8") if line.strip()]
    tok = PreTrainedTokenizerFast(tokenizer_file=a.tokenizer)
    out = {}
    for name in sorted(n for n in os.listdir(a.templates) if n.endswith(".jinja")):
        template = open(os.path.join(a.templates, name), encoding="utf-8").read()
        s = settings.get(name, {})
        kwargs = {k: s[k] for k in ("bos_token", "eos_token") if k in s}
        results = {}
        for r in rows:
            row = with_json_arguments(r["row"]) if s.get("json_arguments") else r["row"]

            def render(msgs, gen):
                return tok.apply_chat_template(msgs, tools=row["tools"], tokenize=False, add_generation_prompt=gen,
                                               chat_template=template, strftime_now=lambda f: date.strftime(f), **kwargs)
            try:
                results[r["key"]] = result(render, row["messages"], r["key"], a)
            except Exception as e:  # the template's own raise_exception, or a Jinja error
                results[r["key"]] = {"error": str(e)}
        out[name] = results
        errors = sum(1 for x in results.values() if "error" in x)
        print(f"{name}: {len(results) - errors} rendered, {errors} raised", file=sys.stderr)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
